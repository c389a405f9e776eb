export * from "./mpi.js";
export * from "./mpirun.js";
export * from "./pod-template.js";
export * from "./pytorch.js";
export * from "./render.js";
export * from "./types.js";
export * from "./volcano.js";
export * from "./words.js";
