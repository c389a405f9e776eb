/** The fabric domain: the model, the simulator, the rail-aware planner and its evaluation. */

export { type LldpNeighbour, parseLldpJson, topologyFromLldp } from "./discover/lldp.js";
export * from "./eval.js";
export * from "./model.js";
export { createRailPlanner, type RailPlanner, railState } from "./plan/planner.js";
export { type FabricFound, fabricFound, runRailBench } from "./plan/run.js";
export { NODE_MODELS, railNics, railNicsFromPaths } from "./rail-nics.js";
export { type FabricTruth, type FaultCounts, faultCountProblem } from "./simulate/faults.js";
export { type RailSimulation, type RailSimulationOptions, simulateRailFleet } from "./simulate/fleet.js";
export { parseTopologyFile, type TopologyFile } from "./topology-file.js";
