/** NCCL over RDMA: derive the variables (`nccl-env`), analyse NCCL logs and nccl-tests output, build bench commands. */
export { BASELINES, findBaseline, PER_NIC_CEILINGS, perNicCeiling } from "./baselines.js";
export {
  COLLECTIVES,
  type NcclTestsCommand,
  type NcclTestsCommandOptions,
  ncclTestsCommand,
  shellLine,
} from "./bench-command.js";
export { NCCL_ENV_FINDINGS } from "./catalogue.js";
export { deriveNcclEnv, type NcclEnvOptions, type NcclEnvResult } from "./env.js";
export { analyzeNcclLog, createNcclLogStream, type NcclLogStream, ncclLogAnalyzer } from "./log/analyzer.js";
export { NCCL_LOG_FINDINGS, NCCL_WARN_FINDINGS } from "./log/catalogue.js";
export { LOG_CAUSES } from "./log/causes.js";
export type { NcclLogData, NcclLogVerdict } from "./log/report.js";
export {
  DEFAULT_NETWORK_MODE,
  impossibleOnPodNetwork,
  isInterfaceName,
  NETWORK_MODE_HELP,
  type NetworkMode,
  networkModeFrom,
  podInterfaceNames,
  socketIfnameFor,
} from "./network-mode.js";
export {
  analyzeNcclTests,
  createNcclTestsStream,
  type NcclTestsContext,
  type NcclTestsData,
  ncclTestsAnalyzer,
} from "./perf-results/analyzer.js";
export { NCCL_TESTS_FINDINGS } from "./perf-results/catalogue.js";
export { NCCL_ENV_FORMATS, type NcclEnvFormat, renderNcclEnv } from "./render-env.js";
export { ASSUMED_NCCL_NOTE, parseNcclVersion } from "./version.js";
