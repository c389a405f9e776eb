/** Every verify rule, in the order a reader meets the node: software, GPUs, RDMA devices, ports, GIDs, pod. */

import { carrierCheck } from "./carrier.js";
import { cmaTosCheck } from "./cma-tos.js";
import { congestionCheck } from "./congestion.js";
import { countersCheck } from "./counters.js";
import { flapCheck } from "./flapping.js";
import { gidIndexCheck, gidPresenceCheck, gidSparseCheck } from "./gids.js";
import { gpuClocksCheck } from "./gpu-clocks.js";
import { gpuPcieCheck } from "./gpu-pcie.js";
import { gpuDirectCheck, nearNicCheck } from "./gpudirect.js";
import { gpuCountCheck, gpuExcludedCheck, gpuMemoryCheck, gpuModelCheck } from "./gpus.js";
import { hcaPcieCheck } from "./hca-pcie.js";
import { bondCheck, firmwareCheck, rdmaHcaCheck, uverbsCheck } from "./hcas.js";
import { ibSubnetCheck } from "./ib-subnet.js";
import { losslessCheck, qosUniformCheck } from "./lossless.js";
import { multiNicArpCheck } from "./multi-nic-arp.js";
import { nicPcieControlCheck } from "./nic-pcie-control.js";
import { driverCheck } from "./nvidia-driver.js";
import { nvswitchCheck } from "./nvswitch.js";
import { ofedCheck } from "./ofed.js";
import { acsCheck, iommuCheck } from "./platform.js";
import { podLimitsCheck } from "./pod.js";
import { podNicAffinityCheck } from "./pod-affinity.js";
import { portCountersCheck } from "./port-counters.js";
import { mtuCheck, portStateCheck, rateCheck } from "./ports.js";
import { rdmaNetnsCheck } from "./rdma-netns.js";
import { readProblemsCheck, skippedChecksCheck } from "./read-problems.js";
import { roceMtuCheck } from "./roce-mtu.js";
import { transportCheck } from "./transport.js";
import type { Check } from "./types.js";

export const CHECKS: readonly Check[] = [
  ofedCheck,
  driverCheck,
  gpuCountCheck,
  gpuExcludedCheck,
  gpuModelCheck,
  gpuPcieCheck,
  gpuMemoryCheck,
  gpuClocksCheck,
  nvswitchCheck,
  rdmaHcaCheck,
  transportCheck,
  uverbsCheck,
  portStateCheck,
  rateCheck,
  mtuCheck,
  roceMtuCheck,
  ibSubnetCheck,
  gidPresenceCheck,
  gidIndexCheck,
  gidSparseCheck,
  firmwareCheck,
  hcaPcieCheck,
  nicPcieControlCheck,
  gpuDirectCheck,
  nearNicCheck,
  podNicAffinityCheck,
  countersCheck,
  congestionCheck,
  bondCheck,
  podLimitsCheck,
  readProblemsCheck,
  skippedChecksCheck,
  acsCheck,
  iommuCheck,
  losslessCheck,
  qosUniformCheck,
  portCountersCheck,
  multiNicArpCheck,
  cmaTosCheck,
  flapCheck,
  carrierCheck,
  rdmaNetnsCheck,
];
