export * from "./finding.js";
export * from "./natural.js";
export * from "./result.js";
export * from "./text.js";
