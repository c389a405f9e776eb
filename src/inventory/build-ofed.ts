/** OFED as the node has it: what `ofed_info -s` says is installed, and which mlx5 driver the kernel actually runs. */
import { problem } from "../core/result.js";
import { NOT_RECORDED } from "../host/errors.js";
import type { CommandOutcome } from "../host/types.js";
import { parseOfedInfo } from "../parse/ofed-info.js";
import type { HostFacts } from "./facts.js";
import type { Reading } from "./reading.js";
import type { LoadedMlx5Driver, OfedInfo } from "./types.js";

export function buildOfed(rd: Reading, o: CommandOutcome, modules?: HostFacts["modules"]): OfedInfo {
  const loaded = modules ? loadedMlx5Driver(modules) : null;
  const info = ofedInfoOf(rd, o);
  return loaded ? { ...info, loadedDriver: loaded } : info;
}

function ofedInfoOf(rd: Reading, o: CommandOutcome): OfedInfo {
  const none = { flavor: null, version: null, raw: null };
  if (o.error?.code === NOT_RECORDED) {
    return { status: "unavailable", ...none, error: o.error.message, errorCode: o.error.code };
  }
  if (o.error?.code === "ENOENT") return { status: "absent", ...none };
  if (o.error) {
    rd.problems.push(
      problem("command.failed", o.error.message, { path: o.command, hint: "Run `ofed_info -s` by hand." }),
    );
    return { status: "error", ...none };
  }
  const text = o.stdout.trim() ? o.stdout : o.stderr;
  const r = parseOfedInfo(text);
  if (!r.ok) {
    for (const p of r.problems) rd.problems.push({ ...p, path: o.command });
    return { status: "error", flavor: null, version: null, raw: text.trim() || null };
  }
  const v = r.value;
  return v.status === "present"
    ? { status: "present", flavor: v.flavor, version: v.version, raw: v.raw }
    : { status: "absent", flavor: null, version: null, raw: v.raw };
}

/**
 * The mlx5 driver the kernel runs, or null when mlx5_core is not loaded (or a snapshot did not record /sys/module):
 * then nothing is said about it. OFED's mlx5 modules all need its compat layer mlx_compat; inbox drivers do not.
 */
export function loadedMlx5Driver(m: HostFacts["modules"]): LoadedMlx5Driver | null {
  if (!m.mlx5Core) return null;
  // A version is a short word (`5.8-1.1.2`); anything else in the file (a damaged snapshot) is no version.
  const text = m.mlx5CoreVersion.ok ? m.mlx5CoreVersion.value.trim() : "";
  const version = /^[\w.+-]{1,64}$/.test(text) ? text : null;
  return { from: m.mlxCompat ? "ofed" : "inbox", version };
}

/**
 * Whether the loaded mlx5_core version belongs to the installed OFED version: OFED's modules carry its version
 * without the last part (`5.8-1.1.2` for MLNX_OFED 5.8-1.1.2.1, `23.10-1.1.9` for 23.10-1.1.9.0). Null when either
 * is too short to tell.
 */
export function loadedMatchesInstalled(loaded: string, installed: string): boolean | null {
  const parts = (v: string) => v.split(/[.-]/).filter((p) => p !== "");
  const l = parts(loaded);
  const i = parts(installed);
  if (l.length < 3 || i.length < 3) return null;
  const n = Math.min(l.length, i.length);
  return l.slice(0, n).every((p, k) => p === i[k]);
}

/**
 * When the kernel does not run the installed NVIDIA OFED: `{ loaded: null }` for the inbox mlx5 driver,
 * `{ loaded: "5.4-3.5.8" }` for another OFED's mlx5_core. Null when it does, when nothing says (mlx5_core not
 * recorded; a community `OFED-x` build, which loads no mlx_compat of NVIDIA's), or when no OFED version is known.
 */
export function ofedNotRunning(ofed: OfedInfo): { loaded: string | null } | null {
  const loaded = ofed.loadedDriver;
  if (ofed.status !== "present" || ofed.version === null || ofed.flavor === "OFED" || !loaded) return null;
  if (loaded.from === "inbox") return { loaded: null };
  const same = loaded.version === null ? null : loadedMatchesInstalled(loaded.version, ofed.version);
  return same === false ? { loaded: loaded.version } : null;
}
