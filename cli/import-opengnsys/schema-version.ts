/** The schema version the reference reaches at start (src/schema.c): what the readers expect. */
export const KNOWN_SCHEMA_VERSION = 4;
