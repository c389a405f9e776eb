import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { normalizeHostPath } from "./paths.js";

describe("host paths", () => {
  test("`/sys/class/../bus/./pci//devices/` → `/sys/bus/pci/devices`; a clean path comes back as it is", () => {
    expect(normalizeHostPath("/sys/class/../bus/./pci//devices/")).toBe("/sys/bus/pci/devices");
    expect(normalizeHostPath("sys/class/net")).toBe("/sys/class/net");
    expect(normalizeHostPath("/")).toBe("/");
    expect(normalizeHostPath("/sys/.hidden/..x/a.")).toBe("/sys/.hidden/..x/a.");
  });

  test("any path of `/`, `.`, `..` and names normalises as posix.normalize does, without a trailing slash", () => {
    const part = fc.constantFrom("/", ".", "..", "a", "b.", ".c", "...");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 10 }), (parts) => {
        const p = parts.join("");
        const n = posix.normalize(p.startsWith("/") ? p : `/${p}`);
        expect(normalizeHostPath(p)).toBe(n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n);
      }),
      { seed: 20261203, numRuns: 2000 },
    );
  });
});
