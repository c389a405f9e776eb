import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";

/** Every module a file reaches through relative imports (static and dynamic, type-only included), itself too. */
function importClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)"(\.{1,2}\/[^"]+)\.js"/g)) {
      queue.push(resolve(dirname(file), `${m[1]}.ts`));
    }
  }
  return seen;
}

describe("the planner does not know the simulator it is scored against", () => {
  const here = dirname(new URL(import.meta.url).pathname);
  const planFiles = readdirSync(here)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => join(here, f));

  test("no module of src/fabric/plan reaches src/fabric/simulate (the rail and the flat simulator), directly or not", () => {
    expect(planFiles.length).toBeGreaterThanOrEqual(5);
    const closure = new Set(planFiles.flatMap((f) => [...importClosure(f)]));
    const simulator = [...closure].filter((f) => /\/fabric\/simulate\//.test(f));
    expect(simulator).toEqual([]);
    // The closure is real: it reached the fabric model and the shared diagnosis.
    const rel = [...closure].map((f) => f.slice(f.lastIndexOf("/src/")));
    expect(rel).toEqual(expect.arrayContaining(["/src/fabric/model.ts", "/src/fabric/bench/diagnose.ts"]));
  });
});
