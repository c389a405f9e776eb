import { ncclLogAnalyzer } from "../nccl/log/analyzer.js";
import { ncclTestsAnalyzer } from "../nccl/perf-results/analyzer.js";
import { ibdev2netdevAnalyzer } from "./kinds/ibdev2netdev.js";
import { ibstatAnalyzer } from "./kinds/ibstat.js";
import { ibvDevinfoAnalyzer } from "./kinds/ibv-devinfo.js";
import { nvidiaSmiAnalyzer } from "./kinds/nvidia-smi.js";
import { nvidiaSmiTopoAnalyzer } from "./kinds/nvidia-smi-topo.js";
import { nvidiaSmiXmlAnalyzer } from "./kinds/nvidia-smi-xml.js";
import { ofedInfoAnalyzer } from "./kinds/ofed-info.js";
import { perftestAnalyzer } from "./kinds/perftest.js";
import { ethtoolStatsAnalyzer, mlnxQosAnalyzer } from "./kinds/roce-qos.js";
import { showGidsAnalyzer } from "./kinds/show-gids.js";
import type { AnalyzerKind } from "./types.js";

/** Every format `analyze` recognises; detection scores each on the first 64 KiB of an input. */
export const ANALYZERS: AnalyzerKind[] = [
  showGidsAnalyzer,
  ofedInfoAnalyzer,
  ibvDevinfoAnalyzer,
  ibstatAnalyzer,
  ibdev2netdevAnalyzer,
  nvidiaSmiTopoAnalyzer,
  nvidiaSmiAnalyzer,
  nvidiaSmiXmlAnalyzer,
  ncclTestsAnalyzer,
  ncclLogAnalyzer,
  mlnxQosAnalyzer,
  ethtoolStatsAnalyzer,
  perftestAnalyzer,
];
