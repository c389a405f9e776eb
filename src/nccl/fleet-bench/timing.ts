/** Moved to src/fabric/timing.ts (the fabric domain); kept so that old imports compile. */
export * from "../../fabric/timing.js";
