/** Moved to src/fabric/types.ts (the fabric domain); kept so that old imports compile. */
export * from "../../fabric/types.js";
