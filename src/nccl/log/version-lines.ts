import { FAILURE_LINE, NCCL_PG_VERSION } from "./caller-lines.js";
import { noteVersion } from "./info-facts.js";
import { bannerAt } from "./record.js";
import type { LogState } from "./state.js";
import { failureLine } from "./warnings.js";

/**
 * `RCCL version : 2.21.5-HEAD:5c1e0b2` (RCCL's banner; `RCCL version 2.20.5+hip6.2 HEAD` before), `… is using
 * nccl==2.20.5` (vLLM, SGLang), and DeepEP's answer from ncclGetVersion: `DeepEP initialized with NCCL version: 2.31.2
 * (loaded library)` (its `printf("DeepEP initialized with NCCL version: %d.%d.%d (loaded library)\n", …)` under
 * EP_BUFFER_DEBUG, in a copy of DeepEP's source committed to a public repository, index-file 55747338065).
 */
const LIBRARY_VERSION = /\bNCCL version: (\d+\.\d+\.\d+) \(loaded library\)/;
const OTHER_VERSION = new RegExp(
  `^\\s*RCCL version\\s*(?::\\s*)?(\\d+\\.\\d+\\.\\d+)|\\bnccl==(\\d+\\.\\d+\\.\\d+)\\b|${LIBRARY_VERSION.source}`,
  "i",
);
/**
 * A library's own line naming the NCCL it loaded (vLLM's pynccl `logger.info("vLLM is using nccl==%s", …)`, DeepEP's
 * `(loaded library)`): like NCCL's banner, the one NCCL line such a run prints without NCCL_DEBUG.
 */
export const LOADED_NCCL_LINE = new RegExp(`\\bis using nccl==\\d+\\.\\d+\\.\\d+\\b|${LIBRARY_VERSION.source}`);
/**
 * The NCCL library file a process says it loaded: a report's `loaded_library=/opt/nccl/lib/libnccl.so.2.21.5` (a
 * harness that logs what it dlopen'ed), or ldd's `libnccl.so.2 => /usr/lib/…/libnccl.so.2.21.5 (0x…)` (the file the
 * loader resolves). The file's name carries the version (NCCL's Makefile links libnccl.so.MAJOR.MINOR.PATCH).
 */
const LOADED_LIBRARY = /(?:\bloaded\w*\s*[=:]\s*|\blibnccl\.so\.\d+\s*=>\s*)\S*?\blibnccl\.so\.(\d+\.\d+\.\d+)\b/i;
const TORCH_NCCL_ASK = /\btorch\.cuda\.nccl\.version\(\)/;
const TORCH_NCCL_ANSWER = /^\s*\((\d+), (\d+), (\d+)\)\s*$/;

/**
 * The NCCL version a line with no NCCL record states: NCCL's banner behind another prefix, PyTorch's process group,
 * RCCL's banner, a framework's `nccl==`, PyTorch's answer to `torch.cuda.nccl.version()` on the line after the ask.
 */
export class VersionLines {
  /** The line before asked PyTorch for its NCCL's version (TORCH_NCCL_ASK). */
  private asked = false;

  constructor(private readonly st: LogState) {}

  /** An NCCL record came between: an ask before it is answered no more. */
  recordSeen(): void {
    this.asked = false;
  }

  /** Reads the version `text` (the line `s[start, end)` from `p`, past its prefixes) states; whether it stated one. */
  read(s: string, start: number, p: number, end: number, text: string): boolean {
    const st = this.st;
    // The banner behind a logger's own prefix (`2025-06-11 09:12:05,302 - trainer - INFO - NCCL version …`), or the
    // version an application's NCCL error quotes (`…unhandled system error …, NCCL version 2.14.3`).
    const v = bannerAt(text);
    if (v >= 0) {
      st.ncclLines++;
      noteVersion(this.st, s, p + v, end, s.slice(start, p + v));
      if (FAILURE_LINE.test(text)) failureLine(this.st, s, p, end);
      return true;
    }
    // PyTorch's NCCL process group naming the NCCL it loaded (caller-lines.ts): a line of the NCCL log.
    const pg = NCCL_PG_VERSION.exec(text);
    if (pg) {
      st.ncclLines++;
      noteVersion(this.st, s, p + pg.index, end, s.slice(start, p + pg.index), pg[1]);
      return true;
    }
    // The version in words other than NCCL's banner: RCCL's own banner (`RCCL version : 2.21.5-HEAD:…`, NCCL's version
    // it is built from) or a framework naming the library it loaded (`vLLM is using nccl==2.20.5`).
    const other = OTHER_VERSION.exec(text);
    if (other) {
      // A line of this NCCL log, as NCCL's own banner is: all such a run prints of NCCL without NCCL_DEBUG.
      st.ncclLines++;
      noteVersion(this.st, s, p + other.index, end, s.slice(start, p + other.index), other[1] ?? other[2] ?? other[3]);
      return true;
    }
    const loaded = text.includes("libnccl.so.") ? LOADED_LIBRARY.exec(text) : null;
    if (loaded) {
      noteVersion(this.st, s, p + loaded.index, end, s.slice(start, p + loaded.index), loaded[1]);
      return true;
    }
    // PyTorch asked for the NCCL it loaded (`python -c "…print(torch.cuda.nccl.version())"`), its answer on the next
    // line: `(2, 27, 5)` (torch/cuda/nccl.py, version() returns (major, minor, patch)).
    const asked = this.asked;
    this.asked = TORCH_NCCL_ASK.test(text);
    if (asked) {
      const v = TORCH_NCCL_ANSWER.exec(text);
      if (v) {
        noteVersion(this.st, s, p, end, "", `${v[1]}.${v[2]}.${v[3]}`);
        return true;
      }
    }
    return false;
  }
}
