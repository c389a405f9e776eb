/** Moved to src/fabric/prng.ts (the fabric domain); kept so that old imports compile. */
export * from "../../fabric/prng.js";
