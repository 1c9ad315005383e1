/**
 * Nesting deeper than this is no Pod (the schema is about 15 levels deep): refused by the YAML and JSON counts
 * before a parse builds it, and by the document check after one.
 */
export const MAX_NESTING_DEPTH = 64;
