/**
 * The hostile-input fuzz suite (issue 13): seeded fast-check runs that damage snapshots, `--root` trees, command
 * captures and manifests the way an attacker or an unlucky operator would, and count what a user must never see:
 * a crash (a throw or a rejection, an exit code outside 0/1/2), a hang (one input taking over 5 s), a silent pass
 * (damage the tool must notice, answered with a clean PASS), and a leak (text from outside a --root tree in the
 * output). `npm test` runs a few dozen inputs per kind; `npm run fuzz` runs many more (KUBE_RDMA_FUZZ_RUNS) and
 * KUBE_RDMA_FUZZ_SEED replays another seed. The report is printed at the end; every count but "inputs" must be 0.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { findExample } from "../../src/examples/index.js";
import { materializeSnapshot } from "../../src/examples/materialize.js";
import { ROOT_CAPTURES } from "../../src/host/fs-reader.js";
import { collectSnapshot } from "../../src/host/snapshot.js";
import { SnapshotHostReader } from "../../src/host/snapshot-reader.js";
import { analyseLog } from "../../src/kube/fleet/node-analyser.js";
import { fuzzHarness } from "./harness.js";

const SEED = Number(process.env.KUBE_RDMA_FUZZ_SEED ?? 1313);
/** Per kind: modest in `npm test`, KUBE_RDMA_FUZZ_RUNS under `npm run fuzz`. */
const runs = (modest: number) => Number(process.env.KUBE_RDMA_FUZZ_RUNS ?? modest);
const HANG_MS = 5000;
/** A test's limit: its runs at up to 3 s each (a tree run is one verify), at least two minutes. */
const limitFor = (modest: number) => Math.max(120_000, runs(modest) * 3000);

const { tally, notes, note, attempt, cli } = fuzzHarness(["silentPasses", "leaks"], HANG_MS);

const base = mkdtempSync(join(tmpdir(), "kube-rdma-fuzz-"));
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  const line = `hostile-input fuzz (seed ${SEED}): ${tally.inputs} inputs, ${tally.crashes} crashes, ${tally.hangs} hangs, ${tally.silentPasses} silent passes, ${tally.leaks} leaks`;
  console.log([line, ...notes].join("\n"));
  if (process.env.KUBE_RDMA_FUZZ_REPORT)
    writeFileSync(process.env.KUBE_RDMA_FUZZ_REPORT, `${JSON.stringify({ seed: SEED, ...tally, notes })}\n`);
  expect({ crashes: tally.crashes, hangs: tally.hangs, silentPasses: tally.silentPasses, leaks: tally.leaks }).toEqual({
    crashes: 0,
    hangs: 0,
    silentPasses: 0,
    leaks: 0,
  });
});

// --- snapshots --------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every place in a JSON tree, as a list of keys. */
function places(v: Json, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) places(v[i]!, [...at, String(i)], out);
  } else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

const typeOf = (v: Json) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

function setAt(root: Json, path: string[], value: Json): Json {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string, Json>;
  let o = copy as Record<string, Json>;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string, Json>;
  o[path.at(-1)!] = value;
  return copy;
}

/** A value of another JSON type than `v` (the schema types every value a snapshot holds: this must be refused). */
const otherType = (v: Json) =>
  fc
    .oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.constantFrom(2 ** 31, -1, 1e308),
      fc.string({ maxLength: 20 }),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
    )
    .filter((x) => typeOf(x as Json) !== typeOf(v) && !(typeOf(v) === "number" && typeof x === "number"));

/** What `collect` writes for the healthy A100 RoCE example node, as parsed JSON. */
async function healthySnapshot(): Promise<Json> {
  const snap = await collectSnapshot(new SnapshotHostReader(findExample("a100-8x-roce")!.snapshot()));
  return JSON.parse(JSON.stringify(snap)) as Json;
}

describe("damaged snapshots through the fleet analysis", () => {
  test("a value of the wrong type anywhere inside → SNAPSHOT_INVALID naming its path, never a crash or a pass", async () => {
    const healthy = await healthySnapshot();
    // Places below the tables (not the top-level kind/version, which have their own words): the deep ones.
    const deep = places(healthy).filter((p) => p.length >= 2);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...deep).chain((p) => fc.tuple(fc.constant(p), otherType(getAt(healthy, p)))),
        async ([path, value]) => {
          const text = JSON.stringify(setAt(healthy, path, value as Json));
          const r = await attempt(`snapshot ${path.join(".")}`, () => analyseLog(text, "gpu-x"));
          if (r?.ok) note("silentPasses", `snapshot with ${path.join(".")} = ${JSON.stringify(value)} was analysed`);
          else if (r && !("invalidAt" in r && r.invalidAt)) note("silentPasses", `no path for ${path.join(".")}`);
        },
      ),
      { seed: SEED, numRuns: runs(40) },
    );
  });

  test("huge or backward ranges, truncated and non-JSON logs → SNAPSHOT_INVALID, never a crash", async () => {
    const healthy = await healthySnapshot();
    const ranges = places(healthy).filter(
      (p) => (p[0] === "dirRuns" || p[0] === "fileRuns") && (p.at(-1) === "to" || p.at(-1) === "from"),
    );
    const mutation = fc.oneof(
      fc
        .tuple(fc.constantFrom(...ranges), fc.constantFrom(2 ** 31, 2 ** 53, 4096, -5, 1.5))
        .map(([p, v]) => JSON.stringify(setAt(healthy, p, v))),
      // Cut short anywhere before its end (the whole text is the healthy snapshot).
      fc.nat(JSON.stringify(healthy).length - 2).map((n) => JSON.stringify(healthy).slice(0, n)),
      fc.string({ maxLength: 200 }).map((s) => `{${s}`),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (text) => {
        const r = await attempt("snapshot range/truncation", () => analyseLog(text, "gpu-x"));
        if (r?.ok) note("silentPasses", `damaged snapshot (${text.length} chars) was analysed`);
      }),
      { seed: SEED, numRuns: runs(30) },
    );
  });
});

function getAt(root: Json, path: string[]): Json {
  let v = root;
  for (const k of path) v = (v as Record<string, Json>)[k]!;
  return v;
}

// --- --root trees -----------------------------------------------------------------------------------------------

describe("hostile --root trees through verify", () => {
  const root = join(base, "tree");
  mkdirSync(root);
  materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), root);
  const secret = join(base, "secret");
  writeFileSync(secret, "TOP-SECRET-OUTSIDE-THE-ROOT\n");
  chmodSync(secret, 0o600);
  const depth = (p: string) => p.split("/").length;

  /** Files whose damage a report must show: port state and rate, link layer, configured GIDs, firmware, the route. */
  const targets = listFiles(root)
    .map((f) => `/${relative(root, f)}`)
    .filter(
      (p) =>
        /^\/sys\/class\/infiniband\/mlx5_\d+\/(?:ports\/1\/(?:state|phys_state|rate|link_layer|gids\/[0-3])|fw_ver)$/.test(
          p,
        ) || p === "/proc/net/route",
    );
  const dirs = ["/sys/class/net", "/sys/class/infiniband", "/proc/net", "/sys/bus/pci/devices"];

  type Damage = "link-out-relative" | "link-out-absolute" | "loop" | "fifo" | "dev-zero" | "huge" | "directory";
  const damages: Damage[] = ["link-out-relative", "link-out-absolute", "loop", "fifo", "dev-zero", "huge", "directory"];

  /** Puts the damage at `p` (a path inside the tree); returns how to undo it. */
  function damage(p: string, how: Damage): () => void {
    const at = join(root, p);
    const kept = `${at}.fuzz-kept`;
    renameSync(at, kept);
    const up = "../".repeat(depth(p) + 2);
    if (how === "link-out-relative") symlinkSync(`${up}${relative("/", secret)}`, at);
    else if (how === "link-out-absolute") symlinkSync(secret, at);
    else if (how === "loop") symlinkSync(p.slice(p.lastIndexOf("/") + 1), at);
    else if (how === "fifo") execFileSync("mkfifo", [at]);
    else if (how === "dev-zero") symlinkSync("/dev/zero", at);
    else if (how === "huge") {
      writeFileSync(at, "");
      truncateSync(at, 300 * 1024 * 1024);
    } else mkdirSync(at);
    return () => {
      rmSync(at, { recursive: true, force: true });
      renameSync(kept, at);
    };
  }

  test(
    "links out, loops, FIFOs, /dev/zero, huge files, directories in place of facts → a finding, never a crash, hang, pass or leak",
    async () => {
      const healthyRun = await cli(["verify", "--root", root, "-o", "json"]);
      expect(JSON.parse(healthyRun.out).summary.status).toBe("pass");
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constantFrom(...targets), fc.constantFrom(...dirs)),
          fc.constantFrom(...damages),
          async (p, how) => {
            const real = join(root, p);
            if (!lstatSync(real, { throwIfNoEntry: false })) return;
            const undo = damage(p, how);
            try {
              const r = await attempt(`tree ${p} ${how}`, () => cli(["verify", "--root", root, "-o", "json"]));
              if (!r) return;
              if (`${r.out}${r.err}`.includes("TOP-SECRET")) note("leaks", `${p} ${how}`);
              const report =
                r.code === 2 ? null : (JSON.parse(r.out) as { summary: { status: string }; findings: unknown[] });
              if (report && report.summary.status === "pass" && report.findings.length === 0) {
                note("silentPasses", `${p} as ${how}: PASS with no finding`);
              }
            } finally {
              undo();
            }
          },
        ),
        { seed: SEED, numRuns: runs(8) },
      );
    },
    limitFor(8),
  );

  test(
    "damaged command captures (wrong types deep inside, not JSON) → a read problem naming the file, never a pass",
    async () => {
      const file = join(root, ROOT_CAPTURES);
      const original = readFileSync(file, "utf8");
      const captures = JSON.parse(original) as Json;
      const inside = places(captures).filter((p) => p.length >= 1);
      const mutation = fc.oneof(
        fc
          .constantFrom(...inside)
          .chain((p) => otherType(getAt(captures, p)).map((v) => JSON.stringify(setAt(captures, p, v as Json)))),
        // Cut before its closing brace (cutting only the trailing newline leaves the same JSON).
        fc.nat(original.trimEnd().length - 1).map((n) => original.slice(0, n)),
      );
      try {
        await fc.assert(
          fc.asyncProperty(mutation, async (text) => {
            writeFileSync(file, text);
            const r = await attempt("commands.json", () => cli(["verify", "--root", root, "-o", "json"]));
            if (r && r.code !== 2 && !r.out.includes("commands.json")) {
              note("silentPasses", `damaged commands.json (${text.slice(0, 60)}…) not reported`);
            }
          }),
          { seed: SEED, numRuns: runs(8) },
        );
      } finally {
        writeFileSync(file, original);
      }
    },
    limitFor(8),
  );
});

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

// --- manifests and captured outputs -----------------------------------------------------------------------------

/** A slice of `text` replaced by random text, lines dropped, or bytes of another kind spliced in. */
function mutated(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .tuple(fc.nat(text.length), fc.nat(text.length), fc.string({ maxLength: 60 }))
      .map(([a, b, s]) => text.slice(0, Math.min(a, b)) + s + text.slice(Math.max(a, b))),
    fc.shuffledSubarray(text.split("\n")).map((l) => l.join("\n")),
    fc.constantFrom("\u0000\u0001\u0002", "{{{{", "- - - -\n  ? : !!binary", "&a [*a, *a, *a]", "\t\t\n:"),
  );
}

describe("mutated manifests and captured outputs", () => {
  const dir = join(base, "inputs");
  mkdirSync(dir);
  const manifests = readdirSync("fixtures/manifests/good").map((f) =>
    readFileSync(join("fixtures/manifests/good", f), "utf8"),
  );
  // Every capture under fixtures/captures/<kind>/ (the corpus table beside the folders is not a capture).
  const captures = listFiles("fixtures/captures")
    .filter((f) => f !== join("fixtures/captures", "corpus.json"))
    .map((f) => readFileSync(f, "utf8"));

  test(
    "lint of a mutated manifest: exit 0/1/2 with words, never a crash; not YAML is never a clean pass",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...manifests).chain(mutated), async (text) => {
          const file = join(dir, "job.yaml");
          writeFileSync(file, text);
          const r = await attempt("lint", () => cli(["lint", file]));
          const broken = parseAllDocuments(text).some((d) => d.errors.length > 0);
          if (r && broken && r.code === 0)
            note("silentPasses", `lint passed YAML that does not parse: ${text.slice(0, 60)}`);
        }),
        { seed: SEED, numRuns: runs(30) },
      );
    },
    limitFor(30),
  );

  test(
    "analyze of a mutated capture: exit 0/1/2, never a crash or a hang",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...captures).chain(mutated), async (text) => {
          const file = join(dir, "capture.txt");
          writeFileSync(file, text);
          await attempt("analyze", () => cli(["analyze", file, "-o", "json"]));
        }),
        { seed: SEED, numRuns: runs(30) },
      );
    },
    limitFor(30),
  );
});
