export * from "./errors.js";
export * from "./fs-reader.js";
export * from "./open.js";
export * from "./paths.js";
export * from "./recording-reader.js";
export * from "./run-command.js";
export * from "./snapshot.js";
export * from "./snapshot-reader.js";
export type * from "./types.js";
