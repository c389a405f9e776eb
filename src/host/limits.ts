/** Limits a host reader applies before the snapshot schema (snapshot-schema.ts) is loaded. */

/** Entries of one directory listing. */
export const MAX_LISTING = 65_536;
