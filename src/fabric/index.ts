/**
 * The fabric domain, the one home of `fleet bench`: the model, the discovery of a cluster's topology, the planners
 * (flat: pairs and adaptive; rail-aware), the shared diagnosis and report, the simulators and their evaluation.
 */

export { type Budget, type BudgetOptions, estimateBudget } from "./bench/budget.js";
export { FLEET_BENCH_FINDINGS, retestWords } from "./bench/catalogue.js";
export { DEFAULT_FLEET_TOLERANCE, type Diagnosis, diagnose, pendingRetests, type Verdict } from "./bench/diagnose.js";
export {
  formatNcclTestsOutput,
  parseJobLog,
  RAIL_MARKER,
  railTestScript,
  renderJobLog,
  sweepArgs,
} from "./bench/job-log.js";
export { renderBenchReport, renderBudget } from "./bench/render.js";
export { buildBenchReport, type FleetBenchReport, type Found, foundOf } from "./bench/report.js";
export { type BenchRun, runFleetBench } from "./bench/run-bench.js";
export { type Score, scoreFound } from "./bench/score.js";
export { type LldpNeighbour, parseLldpJson, topologyFromLldp } from "./discover/lldp.js";
export {
  discoverTopology,
  type HyperNodeObject,
  LEAF_LABELS,
  type NodeFacts,
  type Topology,
} from "./discover/topology.js";
export * from "./eval.js";
export * from "./model.js";
export {
  adaptivePlanner,
  createPlanner,
  firstRound,
  PLANS,
  type PlanName,
  type Planner,
  pairsPlanner,
} from "./plan/flat.js";
export { createRailPlanner, type RailPlanner, railState } from "./plan/planner.js";
export { type FabricFound, fabricFound, runRailBench } from "./plan/run.js";
export { NODE_MODELS, railNics, railNicsFromPaths } from "./rail-nics.js";
export { type FabricTruth, type FaultCounts, faultCountProblem } from "./simulate/faults.js";
export { type SimulatedFleet, type SimulationOptions, simulateFleet, type Truth } from "./simulate/flat.js";
export { type RailSimulation, type RailSimulationOptions, simulateRailFleet } from "./simulate/fleet.js";
export { parseTopologyFile, type TopologyFile } from "./topology-file.js";
export * from "./types.js";
