/** OFED: what `ofed_info -s` says is installed, and whether the kernel runs those drivers. */
import { NOT_RECORDED } from "../host/errors.js";
import { ofedNotRunning } from "../inventory/build-ofed.js";
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

const firstLine = (raw: string | null) =>
  raw
    ?.split("\n")
    .find((l) => l.trim() !== "")
    ?.trim() ?? null;

/** The fix for a snapshot that lacks a command's record. */
export const NOT_RECORDED_FIX =
  "Take the snapshot again on the node with this version of kube-rdma (`kube-rdma collect -o node.json`), which " +
  "records every command it needs, then `kube-rdma verify --snapshot node.json`.";

export const ofedCheck: Check = {
  name: "ofed",
  codes: ["OFED_ABSENT", "OFED_TOOLS_ABSENT", "OFED_NOT_RUNNING", "OFED_UNRECOGNISED", "CHECK_SKIPPED"],
  run(inv) {
    const { ofed } = inv;
    if (ofed.status === "unavailable") {
      return [
        finding("CHECK_SKIPPED", "ofed_info", {
          checks: "the OFED version (ofed_info -s)",
          why: ofed.error ?? "ofed_info could not be asked",
          ...(ofed.errorCode === NOT_RECORDED ? { fix: NOT_RECORDED_FIX } : {}),
        }),
      ];
    }
    if (ofed.status === "absent") {
      return ofed.loadedDriver?.from === "ofed"
        ? [finding("OFED_TOOLS_ABSENT", "ofed_info", { version: ofed.loadedDriver.version })]
        : [finding("OFED_ABSENT", "ofed_info", { detail: firstLine(ofed.raw) })];
    }
    if (ofed.status === "error" || ofed.flavor === null || ofed.version === null) {
      return [finding("OFED_UNRECOGNISED", "ofed_info", { raw: firstLine(ofed.raw), status: ofed.status })];
    }
    const notRunning = ofedNotRunning(ofed);
    return notRunning
      ? [finding("OFED_NOT_RUNNING", "mlx5_core", { installed: `${ofed.flavor} ${ofed.version}`, ...notRunning })]
      : [];
  },
};
