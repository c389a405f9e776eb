export * from "./manifests.js";
export * from "./run.js";
