/** The software stack answers: OFED (or inbox rdma-core) and the NVIDIA driver. */
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

const firstLine = (raw: string | null) =>
  raw
    ?.split("\n")
    .find((l) => l.trim() !== "")
    ?.trim() ?? null;

export const ofedCheck: Check = {
  name: "ofed",
  codes: ["OFED_ABSENT", "OFED_UNRECOGNISED"],
  run(inv) {
    const { ofed } = inv;
    if (ofed.status === "absent") return [finding("OFED_ABSENT", "ofed_info", { detail: firstLine(ofed.raw) })];
    if (ofed.status === "error" || ofed.flavor === null || ofed.version === null) {
      return [finding("OFED_UNRECOGNISED", "ofed_info", { raw: firstLine(ofed.raw), status: ofed.status })];
    }
    return [];
  },
};

export const driverCheck: Check = {
  name: "nvidia-driver",
  codes: ["DRIVER_ABSENT", "DRIVER_NOT_RESPONDING"],
  run(inv) {
    const { driver } = inv;
    if (driver.status === "absent") return [finding("DRIVER_ABSENT", "nvidia-smi", { error: driver.error })];
    if (driver.status === "error" || driver.status === "timeout") {
      return [finding("DRIVER_NOT_RESPONDING", "nvidia-smi", { status: driver.status, error: driver.error })];
    }
    return [];
  },
};
