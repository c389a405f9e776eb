export * from "./analyse.js";
export * from "./catalogue.js";
export * from "./collector.js";
export * from "./consistency.js";
export * from "./render.js";
export * from "./run.js";
export * from "./select.js";
export * from "./snapshot-log.js";
