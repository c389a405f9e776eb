/**
 * `ip -4 rule show` (iproute2, ip-rule(8): https://man7.org/linux/man-pages/man8/ip-rule.8.html): one rule a line,
 * `PRIORITY:\tSELECTOR ACTION`, e.g. `0:\tfrom all lookup local`, `32765:\tfrom 10.12.1.2 lookup rail1`,
 * `32766:\tfrom all lookup main`. Pure.
 */
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

export type IpRule = {
  priority: number;
  /** The `from` selector (`all`, `10.12.1.2`, `10.12.1.0/24`). */
  from: string;
  /** The `lookup` table (`main`, `101`, `rail1`), null for other actions (`blackhole`, `goto`). */
  table: string | null;
  /** The rest of the selector (`iif eth1`, `fwmark 0x1`, …), as printed. */
  text: string;
};

const RULE = /^(\d+):\s+(?:not\s+)?from\s+(\S+)(.*)$/;

export function parseIpRule(text: string): ParseResult<IpRule[]> {
  const rules: IpRule[] = [];
  const problems: Problem[] = [];
  splitLines(text).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const m = RULE.exec(line);
    if (!m) {
      if (problems.length < 5) {
        problems.push(problem("ip_rule.unrecognised", `unrecognised line "${line.slice(0, 80)}"`, { line: i + 1 }));
      }
      return;
    }
    const table = /\b(?:lookup|table)\s+(\S+)/.exec(m[3]!);
    rules.push({ priority: Number(m[1]), from: m[2]!, table: table ? table[1]! : null, text: line });
  });
  if (rules.length === 0) {
    return fail(
      problem("ip_rule.empty", `found no "N: from … lookup …" rule in "${text.trim().slice(0, 80)}"`, {
        hint: "Capture it again with `ip -4 rule show`.",
      }),
    );
  }
  return ok(rules, problems);
}
