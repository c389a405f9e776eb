/** The NVIDIA driver answers nvidia-smi, or why it could not be asked (OFED is in ofed.ts). */
import { NOT_RECORDED } from "../host/errors.js";
import { finding } from "./catalogue.js";
import { NOT_RECORDED_FIX } from "./ofed.js";
import type { Check } from "./types.js";

const UNAVAILABLE_FIX =
  "Run `kube-rdma verify` on the node itself, or give the collector what nvidia-smi needs: the NVIDIA container " +
  "runtime with NVIDIA_VISIBLE_DEVICES=all (fleet verify's pods use `void` so that they hold no GPU), or the host's " +
  "libnvidia-ml.so and /dev/nvidia* mounted in. Where the GPU operator runs the driver in a container, nvidia-smi is " +
  "under /run/nvidia/driver/usr/bin on the host, not /usr/bin. Then rerun; --strict fails until every check ran.";

export const driverCheck: Check = {
  name: "nvidia-driver",
  codes: ["DRIVER_ABSENT", "DRIVER_NOT_RESPONDING", "CHECK_SKIPPED"],
  run(inv) {
    const { driver } = inv;
    if (driver.status === "absent") return [finding("DRIVER_ABSENT", "nvidia-smi", { error: driver.error })];
    if (driver.status === "unavailable" && driver.errorCode === NOT_RECORDED) {
      return [
        finding("CHECK_SKIPPED", "nvidia-smi", {
          checks: "NVIDIA driver and GPU health (nvidia-smi)",
          why: driver.error ?? "nvidia-smi was not recorded",
          fix: NOT_RECORDED_FIX,
        }),
      ];
    }
    if (driver.status === "unavailable") {
      return [
        finding("CHECK_SKIPPED", "nvidia-smi", {
          checks: "NVIDIA driver and GPU health (nvidia-smi)",
          why:
            `${driver.error ?? "nvidia-smi could not run here"}. That is this environment, not the driver` +
            (driver.driverVersion ? ` (/proc/driver/nvidia/version: driver ${driver.driverVersion} is loaded)` : ""),
          fix: UNAVAILABLE_FIX,
        }),
      ];
    }
    if (driver.status === "error" || driver.status === "timeout") {
      return [finding("DRIVER_NOT_RESPONDING", "nvidia-smi", { status: driver.status, error: driver.error })];
    }
    return [];
  },
};
