declare module 'ogserve' {
  interface EventMap {
    /**
     * An image's file was hashed and found good: after a create, a pull, a recovery, or a
     * check of a damaged image whose file is right again. `sha256` and `size` are the file's.
     */
    'image.available': { image: number; name: string; sha256: string; size: number };
    /** An image's file is missing, or differs from its record: restores of it are refused. */
    'image.damaged': { image: number; name: string; reason: string };
  }
}

export {};
