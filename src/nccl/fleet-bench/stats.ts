/** Moved to src/fabric/stats.ts (the fabric domain); kept so that old imports compile. */
export * from "../../fabric/stats.js";
