import { ImageEntity, MONOLITHIC } from './entities/image';
import { imageHoldings, writeImages } from './import';
import { ImageCreateParams } from './schemas';

/**
 * What `ogserve import-opengnsys` takes from images: what they hold (`--merge`), the writer of
 * the records, the rules of POST /image/create, the type an image without one gets, and the
 * lengths of the columns agents fill in.
 */
export const imagesImport = {
  holdings: imageHoldings,
  write: writeImages,
  createParams: ImageCreateParams,
  defaultType: MONOLITHIC,
  columnLength: (column: 'clonator' | 'compressor' | 'filesystem'): number => ImageEntity.meta.properties[column].length!,
};

declare module 'ogserve' {
  interface ImportParts {
    images: typeof imagesImport;
  }
}
