/**
 * The hostile-input fuzz suite, round 3 (issue 27): seeded fast-check runs over the shapes the first rounds left
 * out — interface names that are prototype keys, control characters or shell metacharacters (through verify and
 * through `nccl-env -o shell` evaluated by a real shell); damaged counters, hard links and devices in a --root tree;
 * huge counts (HCAs, counters, netdevs, pods' HCAs); and an API server that stalls log streams, throttles with 429
 * or fails, under fleet verify. Counted like the first suite: crashes, hangs, silent passes, leaks (text from
 * outside a tree), escapes (a raw ESC byte in text output) and injections (a shell running what a name carried);
 * every count but "inputs" must be 0. `npm test` runs a few inputs per kind; `npm run fuzz` many more.
 */
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { findExample } from "../../src/examples/index.js";
import { materializeSnapshot } from "../../src/examples/materialize.js";
import { collectSnapshot } from "../../src/host/snapshot.js";
import { SnapshotHostReader } from "../../src/host/snapshot-reader.js";
import { node, seedCluster } from "../support/kube/cluster-fixtures.js";
import { startFakeApi } from "../support/kube/fake-api.js";
import { fuzzHarness } from "./harness.js";

const SEED = Number(process.env.KUBE_RDMA_FUZZ_SEED ?? 2727);
const runs = (modest: number) => Number(process.env.KUBE_RDMA_FUZZ_RUNS ?? modest);
const HANG_MS = 5000;
const limitFor = (modest: number, each = 3000) => Math.max(120_000, runs(modest) * each);

const harness = fuzzHarness(["silentPasses", "leaks", "escapes", "injections"], HANG_MS);
const { tally, notes, note, attempt } = harness;

/** A CLI run (crashes thrown by the harness); raw escape bytes on stderr are counted as escapes. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await harness.cli(args);
  if (/[\u001b\u009b]/.test(r.err)) note("escapes", `stderr of ${args.slice(0, 2).join(" ")}`);
  return r;
}

const base = mkdtempSync(join(tmpdir(), "kube-rdma-fuzz3-"));
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  const counts = Object.entries(tally)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  console.log([`hostile-shapes fuzz (seed ${SEED}): ${counts}`, ...notes].join("\n"));
  const { inputs: _inputs, ...bad } = tally;
  expect(bad).toEqual({ crashes: 0, hangs: 0, silentPasses: 0, leaks: 0, escapes: 0, injections: 0 });
});

const example = () => findExample("a100-8x-roce")!.snapshot();

// --- hostile names ----------------------------------------------------------------------------------------------

/** Names an attacker gives an interface: prototype keys, terminal escapes, shell metacharacters (no `/` or NUL). */
const hostileName = (marker: string) =>
  fc.oneof(
    fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString"),
    fc.constantFrom(
      "eth\u001b[2J\u001b[Hx",
      "eth\u001b]0;pwned\u0007",
      "eth\r\nFAKE: PASS",
      "eth\u009b31m",
      "eth\u202ex",
    ),
    fc.constantFrom(
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `;touch ${marker};`,
      `'$(touch ${marker})'`,
      `"|touch ${marker}&`,
    ),
    fc
      .array(fc.constantFrom("$", "(", ")", "`", ";", "|", "&", "'", '"', "\\", "\u001b", "\n", "*", "{", "}", "e"), {
        minLength: 1,
        maxLength: 12,
      })
      .map((cs) => cs.join("")),
  );

/** The example snapshot's JSON with its interface eth1 renamed to `name` everywhere (keys, paths, values). */
function renamed(name: string): string {
  return JSON.stringify(example()).replace(/\beth1\b/g, JSON.stringify(name).slice(1, -1));
}

describe("hostile interface names through verify and nccl-env", () => {
  test(
    "prototype keys, control characters, shell metacharacters → no crash, no raw ESC, a sourced shell runs nothing",
    async () => {
      let i = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constant(null).chain(() => {
            const marker = join(base, `marker-${i++}`);
            return fc.tuple(fc.constant(marker), hostileName(marker));
          }),
          async ([marker, name]) => {
            const file = join(base, "named.json");
            writeFileSync(file, renamed(name));
            const text = await attempt(`verify name ${JSON.stringify(name)}`, () =>
              cli(["verify", "--snapshot", file]),
            );
            if (text && /[\u001b\u009b]/.test(text.out)) note("escapes", `verify text for ${JSON.stringify(name)}`);
            const json = await attempt(`verify -o json ${JSON.stringify(name)}`, () =>
              cli(["verify", "--snapshot", file, "-o", "json"]),
            );
            if (json && json.code !== 2) JSON.parse(json.out);
            const env = await attempt(`nccl-env ${JSON.stringify(name)}`, () =>
              cli(["nccl-env", "--snapshot", file, "-o", "shell"]),
            );
            if (env && env.code !== 2) {
              if (/[\u001b\u009b]/.test(env.out)) note("escapes", `nccl-env for ${JSON.stringify(name)}`);
              execFileSync("sh", ["-c", 'eval "$1"', "sh", env.out], { stdio: "ignore" });
              if (existsSync(marker)) note("injections", `nccl-env -o shell ran ${JSON.stringify(name)}`);
            }
          },
        ),
        { seed: SEED, numRuns: runs(12) },
      );
    },
    limitFor(12, 6000),
  );
});

// --- damaged counters, hard links and devices in a --root tree -------------------------------------------------

describe("damaged counters, hard links and devices in a --root tree", () => {
  const root = join(base, "tree");
  mkdirSync(root);
  materializeSnapshot(example(), root);
  const secret = join(base, "secret");
  writeFileSync(secret, "TOP-SECRET-OUTSIDE-THE-ROOT\n");
  const counters = ["symbol_error", "link_downed", "port_rcv_errors", "excessive_buffer_overrun_errors"].map(
    (c) => `/sys/class/infiniband/mlx5_${1 + (c.length % 8)}/ports/1/counters/${c}`,
  );
  const hw = ["out_of_sequence", "packet_seq_err", "local_ack_timeout_err"].map(
    (c) => `/sys/class/infiniband/mlx5_2/ports/1/hw_counters/${c}`,
  );
  const damage = fc.oneof(
    fc
      .constantFrom("12abc", "1e309", "0x10", "-5", "", " ", "9".repeat(25), "\u001b[2J7", "$(id)", "1\n2\n", "NaN")
      .map((text) => ({ kind: "text" as const, text })),
    fc
      .constantFrom("hardlink", "/dev/zero", "/dev/null", "/dev/urandom", "/dev/full", "fifo")
      .map((kind) => ({ kind })),
  );

  test(
    "each a finding naming the file: never a crash, hang, silent pass or leak",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...counters, ...hw), damage, async (p, d) => {
          const at = join(root, p);
          const kept = `${at}.fuzz-kept`;
          renameSync(at, kept);
          try {
            if (d.kind === "text") writeFileSync(at, d.text);
            else if (d.kind === "hardlink") linkSync(secret, at);
            else if (d.kind === "fifo") execFileSync("mkfifo", [at]);
            else symlinkSync(d.kind, at);
            const r = await attempt(`tree ${p} ${JSON.stringify(d)}`, () =>
              cli(["verify", "--root", root, "-o", "json"]),
            );
            if (!r) return;
            if (`${r.out}${r.err}`.includes("TOP-SECRET")) note("leaks", `${p} ${d.kind}`);
            const report = r.code === 2 ? null : (JSON.parse(r.out) as { findings: { subject: string }[] });
            if (report && !report.findings.some((f) => f.subject === p)) {
              note("silentPasses", `${p} as ${JSON.stringify(d)}: no finding names it`);
            }
          } finally {
            rmSync(at, { force: true });
            renameSync(kept, at);
          }
        }),
        { seed: SEED, numRuns: runs(10) },
      );
    },
    limitFor(10),
  );
});

// --- huge counts ----------------------------------------------------------------------------------------------------

describe("huge counts", () => {
  const counts = fc.constantFrom(0, 1, 255, 256, 257, 10_000, 65_536, 65_537, 200_000);

  test(
    "an RDMA device listing or a counters directory of any size: bounded time, never a crash",
    async () => {
      await fc.assert(
        fc.asyncProperty(counts, fc.constantFrom("hcas", "counters"), async (n, what) => {
          const s = example();
          if (what === "hcas") s.dirs["/sys/class/infiniband"] = Array.from({ length: n }, (_, i) => `mlx5_${i}`);
          else {
            const dir = "/sys/class/infiniband/mlx5_1/ports/1/counters";
            s.dirs[dir] = Array.from({ length: n }, (_, i) => `c${i}`);
            for (let i = 0; i < Math.min(n, 70_000); i++) s.files[`${dir}/c${i}`] = `${i}\n`;
          }
          const file = join(base, "huge.json");
          writeFileSync(file, JSON.stringify(s));
          await attempt(`verify with ${n} ${what}`, () => cli(["verify", "--snapshot", file, "-o", "json"]), 15_000);
        }),
        { seed: SEED, numRuns: runs(6) },
      );
    },
    limitFor(6, 15_000),
  );

  test(
    "pod facts with any number of HCAs or netdevs: preflight diff answers in bounded time (exit 2 past the schema's caps)",
    async () => {
      const good = await cli(["preflight", "--facts-only", "--example", "training-pod", "-o", "json"]);
      const facts = JSON.parse(good.out) as { hcas: { name: string }[]; netdevs: { name: string }[] };
      const a = join(base, "a.json");
      writeFileSync(a, good.out);
      await fc.assert(
        fc.asyncProperty(counts, fc.constantFrom("hcas", "netdevs"), async (n, what) => {
          const row = what === "hcas" ? facts.hcas[1]! : facts.netdevs[1]!;
          const many = Array.from({ length: n }, (_, i) => ({ ...row, name: `x${i}` }));
          const b = join(base, "b.json");
          writeFileSync(b, JSON.stringify({ ...facts, [what]: many }));
          const r = await attempt(`preflight diff with ${n} ${what}`, () => cli(["preflight", "diff", a, b]), 10_000);
          const cap = what === "hcas" ? 256 : 65_536;
          if (r && n > cap && r.code !== 2) note("silentPasses", `${n} ${what} in pod facts were compared`);
        }),
        { seed: SEED, numRuns: runs(6) },
      );
    },
    limitFor(6, 10_000),
  );
});

// --- an API server that stalls, throttles and fails -------------------------------------------------------------

describe("fleet verify against an API server that stalls, throttles and fails", () => {
  type Misbehaviour = "none" | "stall-log" | "drip-log" | "429" | "429-junk" | "429-huge" | "500-log" | "garbage-log";
  const misbehaviours: Misbehaviour[] = [
    "none",
    "stall-log",
    "drip-log",
    "429",
    "429-junk",
    "429-huge",
    "500-log",
    "garbage-log",
  ];

  test(
    "every node ends as a result or a per-node error within its deadline; no crash, hang or pod left",
    async () => {
      const log = JSON.stringify(await collectSnapshot(new SnapshotHostReader(example())));
      const nodes = ["gpu-1", "gpu-2", "gpu-3"];
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...misbehaviours), { minLength: 3, maxLength: 3 }), async (plan) => {
          const by = new Map(nodes.map((n, i) => [n, plan[i]!]));
          const fake = await startFakeApi(
            seedCluster({ nodes: nodes.map((name) => node({ name, gpus: 8, rdma: "1k" })) }),
            {
              onPodCreated: () => ({ phase: "Succeeded", log, afterMs: 5 }),
              intercept: (req, res) => {
                const pod = fake.store.get("pods")!.find((p) => p.metadata.name === req.name);
                const how = by.get(pod?.spec?.nodeName ?? "") ?? "none";
                if (how === "429" || how === "429-junk" || how === "429-huge") {
                  if (req.method !== "GET" || req.sub !== undefined) return false;
                  const after = how === "429" ? "0" : how === "429-junk" ? "soon, maybe" : "999999999";
                  return answer(res, 429, after, '{"kind":"Status","code":429}');
                }
                if (req.sub !== "log" || how === "none") return false;
                if (how === "500-log") return answer(res, 500, null, '{"kind":"Status","code":500}');
                if (how === "garbage-log") return answer(res, 200, null, "\u001b[2J{not json at all");
                res.writeHead(200, { "content-type": "text/plain" });
                if (how === "stall-log") res.write(log.slice(0, 100));
                else dripForever(res);
                return true;
              },
            },
          );
          try {
            const r = await attempt(
              `fleet verify ${plan.join(",")}`,
              () =>
                cli([
                  "fleet",
                  "verify",
                  "--kubeconfig",
                  fake.kubeconfig,
                  "--timeout",
                  "1",
                  "--poll-interval",
                  "10",
                  "-o",
                  "json",
                ]),
              15_000,
            );
            if (!r) return;
            const report = JSON.parse(r.out) as { nodes: { node: string }[]; run: { podsLeft: string[] } };
            if (report.nodes.length !== 3)
              note("silentPasses", `${plan.join(",")}: ${report.nodes.length} nodes reported`);
            if (
              report.run.podsLeft.length > 0 ||
              fake.store.get("pods")!.some((p) => p.metadata.namespace === "kube-rdma")
            )
              note("silentPasses", `${plan.join(",")}: pods left behind`);
            if (plan.some((m) => m !== "none") && r.code === 0) note("silentPasses", `${plan.join(",")}: exit 0`);
          } finally {
            await fake.close();
          }
        }),
        { seed: SEED, numRuns: runs(5) },
      );
    },
    limitFor(5, 15_000),
  );
});

function answer(res: ServerResponse, code: number, retryAfter: string | null, body: string): true {
  res.writeHead(code, {
    "content-type": "application/json",
    ...(retryAfter !== null ? { "retry-after": retryAfter } : {}),
  });
  res.end(body);
  return true;
}

/** A log body that never ends: one byte every 50 ms. */
function dripForever(res: ServerResponse): void {
  const t = setInterval(() => res.write("{"), 50);
  res.on("close", () => clearInterval(t));
}
