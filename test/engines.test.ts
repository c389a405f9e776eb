/**
 * `engines.node` stays truthful: every package in the lock file (dev dependencies too) accepts every Node version our
 * range admits, so `npm ci` on a supported Node prints no EBADENGINE warning. npm compares each installed package's
 * `engines.node` with the running Node as a semver range (https://docs.npmjs.com/cli/v10/configuring-npm/package-json#engines);
 * the grammar read here is node-semver's (https://github.com/npm/node-semver#ranges): `||` sets of comparators,
 * `>=`/`>`/`<=`/`<`/`=`, caret, tilde and x-ranges. A form this reader does not know fails the test, never passes it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

const repo = join(import.meta.dirname, "..");
type Version = [number, number, number];

const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** `20`, `20.19`, `20.x`, `6.*`: the parts given (null for a wildcard or a missing part). */
function parts(text: string): (number | null)[] | null {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(text);
  if (!m) return null;
  return [m[1], m[2], m[3]].map((p) => (p === undefined || /[xX*]/.test(p) ? null : Number(p)));
}

/** One comparator as a test on a version; null when its form is not one this reader knows. */
function comparator(text: string): ((v: Version) => boolean) | null {
  const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(text);
  if (!m) return null;
  const op = m[1] ?? "";
  const p = parts(m[2]!);
  if (!p) return null;
  const [a, b, c] = p as [number | null, number | null, number | null];
  const low: Version = [a ?? 0, b ?? 0, c ?? 0];
  if (a === null) return () => true;
  // The first version past the range an x-range, caret or tilde names.
  const upper = (level: number): Version => (level === 0 ? [a + 1, 0, 0] : [a, (b ?? 0) + 1, 0]);
  const xLevel = b === null ? 0 : c === null ? 1 : 2;
  switch (op) {
    case ">=":
      return (v) => cmp(v, low) >= 0;
    case ">":
      return xLevel === 2 ? (v) => cmp(v, low) > 0 : (v) => cmp(v, upper(xLevel)) >= 0;
    case "<":
      return (v) => cmp(v, low) < 0;
    case "<=":
      return xLevel === 2 ? (v) => cmp(v, low) <= 0 : (v) => cmp(v, upper(xLevel)) < 0;
    case "^":
      if (a === 0) return null; // not a Node version range
      return (v) => cmp(v, low) >= 0 && cmp(v, upper(0)) < 0;
    case "~":
      return (v) => cmp(v, low) >= 0 && cmp(v, upper(b === null ? 0 : 1)) < 0;
    default:
      return xLevel === 2 ? (v) => cmp(v, low) === 0 : (v) => cmp(v, low) >= 0 && cmp(v, upper(xLevel)) < 0;
  }
}

/** A whole range (`^20.19.0 || >=22.12.0`, `>= 14.6`) as a test on a version; null when a part is unknown. */
function satisfies(range: string): ((v: Version) => boolean) | null {
  const sets = range.split("||").map((set) => {
    const tokens = set
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    const tests = tokens.map(comparator);
    return tests.every((t) => t !== null) ? (tests as ((v: Version) => boolean)[]) : null;
  });
  if (sets.some((s) => s === null)) return null;
  return (v) => sets.some((s) => s!.every((t) => t(v)));
}

const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

/**
 * Versions our range admits, the first of each line and one late in it: a dependency that accepts them all accepts the
 * range (a package's range bounds a line at its start or its end, never in its middle).
 */
const probes: Version[] = [
  [20, 19, 0],
  [20, 99, 0],
  [22, 13, 0],
  [22, 99, 0],
  [24, 0, 0],
  [24, 99, 0],
  [26, 0, 0],
  [28, 0, 0],
];

describe("engines.node", () => {
  test("the probes are the range's own: each is admitted, the versions just below each line are not", () => {
    const ours = satisfies(pkg.engines.node);
    expect(ours).not.toBeNull();
    for (const v of probes) expect(ours!(v), v.join(".")).toBe(true);
    for (const v of [
      [20, 18, 9],
      [21, 9, 0],
      [22, 12, 9],
      [23, 11, 0],
    ] as Version[])
      expect(ours!(v), v.join(".")).toBe(false);
  });

  test("every locked package, dev dependencies too, accepts every Node version we admit", () => {
    const refusing: string[] = [];
    const unread: string[] = [];
    let checked = 0;
    for (const [name, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!name || range === undefined) continue;
      checked++;
      const ok = satisfies(range);
      if (ok === null) unread.push(`${name}: ${range}`);
      else for (const v of probes) if (!ok(v)) refusing.push(`${name} (${range}) refuses Node ${v.join(".")}`);
    }
    expect(unread, "ranges this reader cannot judge: extend it").toEqual([]);
    expect(refusing).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });

  test("the reader refuses what npm would refuse", () => {
    // Ranges written as packages write them; each against a version inside and one outside.
    const cases: [string, Version, boolean][] = [
      ["^20.19.0 || >=22.12.0", [22, 11, 0], false],
      ["^20.19.0 || >=22.12.0", [20, 19, 1], true],
      [">=20", [18, 20, 0], false],
      [">= 14.6", [14, 5, 9], false],
      ["6.* || 8.* || >= 10.*", [9, 1, 0], false],
      ["6.* || 8.* || >= 10.*", [24, 0, 0], true],
      ["^16 || ^18 || >=20", [19, 9, 0], false],
      ["4.x || >=6.0.0", [5, 0, 0], false],
      ["~14.17", [14, 18, 0], false],
    ];
    for (const [range, v, want] of cases) expect(satisfies(range)!(v), `${range} @ ${v.join(".")}`).toBe(want);
  });
});
