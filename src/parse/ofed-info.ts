/** `ofed_info -s` (and the first line of a full `ofed_info`). Pure. */
import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { isPromptLine, splitLines, stripPrompt } from "../core/text.js";

export type OfedFlavor = "MLNX_OFED" | "DOCA-OFED" | "OFED";

export type OfedVersion =
  /** `flavor` is null where only the number was printed (`ofed_info -n`): the distribution is not named. */
  | { status: "present"; flavor: OfedFlavor | null; version: string; raw: string }
  /** No `ofed_info` at all: inbox rdma-core (or empty output). */
  | { status: "absent"; flavor: null; version: null; raw: string | null };

/**
 * The version line's distribution and number: `MLNX_OFED_LINUX-5.8-1.1.2.1:`, `OFED-internal-24.01-0.3.3:`,
 * `MLNX_OFED_LINUX-5.8-1.1.2.1 (OFED-5.8-1.1.2):`, and the OpenFabrics Alliance's own OFED, whose 1.x releases have no
 * dash in their number (`OFED-1.2.5.5`, `OFED-1.5.4.1`; later `OFED-3.18-2`). The analyser's detector reads the same.
 */
export const OFED_VERSION_SOURCE =
  "(MLNX_OFED_LINUX|OFED-internal|OFED)-(\\d+\\.\\d+(?:\\.\\d+)?-[\\d.]*\\d|(?<=OFED-)\\d+(?:\\.\\d+){2,3})(?:\\s+\\(.*\\))?:?\\s*$";
/**
 * A label a page or a launcher put before the version line: `# Output: MLNX_OFED_LINUX-23.10-5.1.4.0` (a runbook's
 * comment, shape seen in a runbook committed to a public repository, index-file 47572989122), pdsh's `node-3: `.
 */
export const OFED_LABEL_SOURCE = "(?:[^\\s:]{1,24}:[ \\t]+)?";
const OFED_LINE = new RegExp(`^${OFED_LABEL_SOURCE}${OFED_VERSION_SOURCE}`);
/**
 * `ofed_info -n` prints the version number alone (`5.8-1.1.2.1`; the script's usage says "-n  Show numerical version
 * number only", and a site check compares its output with `5.1-2.5.8.0`-style numbers,
 * https://github.com/weka/tools/blob/master/install/scripts.d/ta/195_ofed.sh): read right under that command, or as
 * the whole output (a pasted session's part under its command).
 */
const NUMBER_COMMAND = /(?:^|\s)ofed_info\s+-n\s*$/;
const NUMBER_LINE = /^(\d+\.\d+-[\d.]*\d)$/;
const NOT_FOUND = /(command not found|not found|No such file or directory)\s*$/i;

const FLAVOR: Record<string, OfedFlavor> = {
  MLNX_OFED_LINUX: "MLNX_OFED",
  "OFED-internal": "DOCA-OFED",
  OFED: "OFED",
};

/**
 * Recognises the MLNX_OFED (`MLNX_OFED_LINUX-x:`), DOCA-OFED (`OFED-internal-x:`) and plain `OFED-x` forms, with or
 * without the `(OFED-…)` suffix of the full `ofed_info` header. A shell's "command not found" or empty output means
 * OFED is absent (inbox rdma-core). Prompt lines and indentation are tolerated.
 */
export function parseOfedInfo(text: string): ParseResult<OfedVersion> {
  const lines = splitLines(text)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const meaningful = lines.filter((l) => !(isPromptLine(l) && /ofed_info/.test(l)));
  if (meaningful.length === 0) return ok({ status: "absent", flavor: null, version: null, raw: null });
  for (const line of meaningful) {
    const m = OFED_LINE.exec(stripPrompt(line));
    if (m) return ok({ status: "present", flavor: FLAVOR[m[1]!]!, version: m[2]!, raw: line });
  }
  const under = lines.findIndex((l, i) => NUMBER_COMMAND.test(l) && NUMBER_LINE.test(lines[i + 1] ?? ""));
  const line = under >= 0 ? lines[under + 1] : meaningful.length === 1 ? meaningful[0] : undefined;
  if (line !== undefined && NUMBER_LINE.test(line)) {
    return ok({ status: "present", flavor: null, version: line, raw: line });
  }
  const first = meaningful[0]!;
  if (meaningful.some((l) => NOT_FOUND.test(l) && /ofed_info/.test(l))) {
    return ok({ status: "absent", flavor: null, version: null, raw: first });
  }
  return fail(
    problem(
      "ofed_info.unrecognised",
      `expected a line like \`MLNX_OFED_LINUX-5.8-1.1.2.1:\` or \`OFED-internal-24.01-0.3.3:\`, found "${first.slice(0, 80)}"`,
      { line: lines.indexOf(first) + 1, hint: "Run `ofed_info -s` on the node and pass its output unchanged." },
    ),
  );
}
