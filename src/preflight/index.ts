export * from "./catalogue.js";
export * from "./compare.js";
export * from "./nccl-library.js";
export * from "./read.js";
export * from "./report.js";
export type * from "./types.js";
