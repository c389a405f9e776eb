/** OFED: what `ofed_info -s` says is installed, and whether the kernel runs those drivers. */
import type { Finding } from "../core/finding.js";
import { NOT_RECORDED } from "../host/errors.js";
import { loadedMatchesInstalled } from "../inventory/build-ofed.js";
import type { OfedInfo } from "../inventory/types.js";
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
    // Only NVIDIA's OFEDs load mlx_compat: a community `OFED-x` build says nothing through it.
    if (ofed.flavor === "OFED") return [];
    return notRunning(ofed, `${ofed.flavor} ${ofed.version}`, ofed.version);
  },
};

/** OFED_NOT_RUNNING when the kernel runs the inbox mlx5 driver, or OFED's of another version. */
function notRunning(ofed: OfedInfo, installed: string, version: string): Finding[] {
  const loaded = ofed.loadedDriver;
  if (!loaded) return [];
  if (loaded.from === "inbox") return [finding("OFED_NOT_RUNNING", "mlx5_core", { installed, loaded: null })];
  if (loaded.version !== null && loadedMatchesInstalled(loaded.version, version) === false) {
    return [finding("OFED_NOT_RUNNING", "mlx5_core", { installed, loaded: loaded.version })];
  }
  return [];
}
