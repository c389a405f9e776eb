export { type Budget, type BudgetOptions, estimateBudget } from "./budget.js";
export { FLEET_BENCH_FINDINGS, retestWords } from "./catalogue.js";
export { DEFAULT_FLEET_TOLERANCE, type Diagnosis, diagnose, pendingRetests, type Verdict } from "./diagnose.js";
export { formatNcclTestsOutput, parseJobLog, RAIL_MARKER, railTestScript, renderJobLog, sweepArgs } from "./job-log.js";
export {
  adaptivePlanner,
  createPlanner,
  firstRound,
  PLANS,
  type PlanName,
  type Planner,
  pairsPlanner,
} from "./plan.js";
export { renderBenchReport, renderBudget } from "./render.js";
export { buildBenchReport, type FleetBenchReport, type Found, foundOf } from "./report.js";
export { type BenchRun, runFleetBench } from "./run-bench.js";
export { type Score, scoreFound } from "./score.js";
export { type SimulatedFleet, type SimulationOptions, simulateFleet, type Truth } from "./simulate.js";
export { discoverTopology, type HyperNodeObject, LEAF_LABELS, type NodeFacts, type Topology } from "./topology.js";
export * from "./types.js";
