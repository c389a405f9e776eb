import { describe, expect, test } from "vitest";
import { parseIpRule } from "./ip-rule.js";

// `ip -4 rule show` as ip-rule(8) prints it (https://man7.org/linux/man-pages/man8/ip-rule.8.html); our own addresses.
describe("ip -4 rule show", () => {
  test("priority, from selector and lookup table of each rule", () => {
    const r = parseIpRule(
      "0:\tfrom all lookup local\n32764:\tfrom 10.40.1.2 lookup rail1\n32765:\tfrom all fwmark 0x1 lookup 100\n32766:\tfrom all lookup main\n",
    );
    expect(r.ok && r.value.map((x) => [x.priority, x.from, x.table])).toEqual([
      [0, "all", "local"],
      [32764, "10.40.1.2", "rail1"],
      [32765, "all", "100"],
      [32766, "all", "main"],
    ]);
  });

  test("an error message is a problem, not an empty rule set", () => {
    expect(parseIpRule("Error: ipv4: FIB table does not exist.\n").ok).toBe(false);
  });
});
