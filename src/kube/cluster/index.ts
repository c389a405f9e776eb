export * from "./catalogue.js";
export * from "./components.js";
export * from "./evaluate.js";
export * from "./render.js";
export * from "./types.js";
