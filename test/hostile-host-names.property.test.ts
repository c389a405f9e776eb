/**
 * Names from a host reach YAML, shell, JSON and terminal output. A host (or a snapshot) whose RDMA device, network
 * interface or hostname holds a newline, `---`, `#`, quotes, an escape sequence, `$(…)` or backticks must never add a
 * document to generated YAML, a variable to a sourced shell script, or a line to a report: each output parses to
 * exactly what a benign host gives, and the name itself is refused (a problem names it) everywhere.
 *
 * Shapes: sysfs names RDMA devices under /sys/class/infiniband/<name> and a GID's interface in
 * ports/<n>/gid_attrs/ndevs/<index> (https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-class-infiniband);
 * the kernel accepts any bytes for the hostname (sethostname(2), https://man7.org/linux/man-pages/man2/sethostname.2.html).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { main } from "../src/cli/main.js";
import { expandSnapshot } from "../src/host/snapshot.js";
import type { Snapshot } from "../src/host/types.js";
import { exampleSnapshot } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const EXAMPLE = "a100-8x-roce";
const dir = mkdtempSync(join(tmpdir(), "kube-rdma-hostile-names-"));

/** The first attack the prober ran: a second document granting cluster-admin, hidden in an HCA's name. */
const CLUSTER_ADMIN =
  "x\n---\n{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: pwn}, " +
  "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}, " +
  "subjects: [{kind: Group, name: 'system:authenticated'}]}\n---\n#";

const PIECES = [
  "\n",
  "\r",
  "\r\n",
  "---",
  "#",
  "'",
  '"',
  "\u001b[2J",
  "\u001b]0;t\u0007",
  "$(touch pwned)",
  "`id`",
  "PASS: 0 error(s) forged",
  "kind: Secret",
  ": ",
  " ",
  "\u0085",
  "\u2028",
  "\t",
  "{a: 1}",
  "export EVIL=1",
];

/** Hostile names: `mlx5_` followed by a mix of the pieces (at least one makes it implausible). */
const hostileName = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 5 })
  .map((ps) => `mlx5_${ps.join("")}`)
  .filter((n) => !/^[A-Za-z0-9_.@+-]+$/.test(n));

/** A copy of the example with one path segment renamed everywhere it appears, and one file's text replaced. */
function renamed(snap: Snapshot, from: string, to: string): Snapshot {
  const seg = (p: string) =>
    p
      .split("/")
      .map((s) => (s === from ? to : s))
      .join("/");
  const out: Snapshot = {
    ...snap,
    files: Object.fromEntries(
      Object.entries(snap.files).map(([p, v]) => [seg(p), v.trim() === from ? v.replace(from, to) : v]),
    ),
    dirs: Object.fromEntries(
      Object.entries(snap.dirs).map(([p, names]) => [seg(p), names.map((n) => (n === from ? to : n))]),
    ),
  };
  if (snap.links) out.links = Object.fromEntries(Object.entries(snap.links).map(([p, t]) => [seg(p), seg(t)]));
  return out;
}

function hostileSnapshot(name: string): string {
  const base = expandSnapshot(exampleSnapshot(EXAMPLE));
  // The HCA, its interface (named by the GID table) and the hostname all carry the attack.
  let snap = renamed(base, "mlx5_3", name);
  snap = renamed(snap, "eth3", `eth3${name.slice(5)}`);
  // A suffix keeps the hostile piece inside the hostname: a name whose only odd piece is a trailing line break would
  // end the file the way the kernel's own newline does, and be read as the plain name before it.
  snap.files["/proc/sys/kernel/hostname"] = `node-1${name.slice(5)}-x\n`;
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(snap));
  return file;
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** Every string anywhere in a parsed value. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

/** No raw control character but newline; no line that the name's own lines could have forged. */
function expectTextSafe(text: string, name: string, what: string): void {
  expect(text, what).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
  const injected = name
    .split(/\r\n|\r|\n|\u0085|\u2028/)
    .slice(1)
    .map((l) => l.trim())
    // `---` and `#` lines are the YAML's own; its structure is checked document by document.
    .filter((l) => l.length > 2 && !/^[-#\s]*$/.test(l));
  for (const line of text.split("\n")) {
    for (const l of injected)
      expect(line.trim().startsWith(l), `${what}: forged line ${JSON.stringify(line)}`).toBe(false);
  }
}

/** The name never reaches a parsed value, except inside the message that refuses it (escaped there). */
function expectNameAbsent(value: unknown, name: string, what: string): void {
  for (const s of strings(value))
    expect(s.includes(name.slice(5)) && /\n|\r|\u001b/.test(s), `${what}: ${JSON.stringify(s)}`).toBe(false);
}

function kindsOf(yamlText: string): string[] {
  const docs = parseAllDocuments(yamlText);
  if (!Array.isArray(docs)) return [];
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => String((d.toJS() as { kind?: unknown } | null)?.kind));
}

const benign = new Map<string, string[]>();
async function benignKinds(kind: string): Promise<string[]> {
  if (!benign.has(kind)) benign.set(kind, kindsOf((await cli(["job", kind, "--example", EXAMPLE])).out));
  return benign.get(kind)!;
}

async function expectAllOutputsSafe(name: string): Promise<void> {
  const snap = hostileSnapshot(name);
  for (const kind of ["pytorch", "nccl-tests"]) {
    const r = await cli(["job", kind, "--snapshot", snap]);
    expect(r.code, `job ${kind}: ${r.err}`).toBe(0);
    // Exactly the documents a benign host gives: no ClusterRoleBinding, no extra `---`.
    expect(kindsOf(r.out), `job ${kind}`).toEqual(await benignKinds(kind));
    expectTextSafe(r.out, name, `job ${kind}`);
    expectNameAbsent(
      parseAllDocuments(r.out).map((d) => d.toJS()),
      name,
      `job ${kind}`,
    );
  }
  for (const format of ["json", "yaml"]) {
    const r = await cli(["verify", "--snapshot", snap, "-o", format]);
    expect([0, 1], `verify -o ${format}: ${r.err}`).toContain(r.code);
    const value = format === "json" ? JSON.parse(r.out) : parseYaml(r.out);
    expect(value.host, `verify -o ${format}`).toMatch(/^(unknown|node-1)$/);
    expect(value.inventory.hcas.map((h: { name: string }) => h.name)).not.toContain(name);
    expect(strings(value.findings).join("\n")).toMatch(/not\s+a\s+name\s+the\s+kernel\s+gives/);
    expectNameAbsent(value.inventory, name, `verify -o ${format}`);
  }
  const text = await cli(["verify", "--snapshot", snap]);
  expectTextSafe(text.out, name, "verify text");
  expect(text.out).toMatch(/not\s+a\s+name\s+the\s+kernel\s+gives/);

  const envJson = await cli(["nccl-env", "--snapshot", snap, "-o", "json"]);
  const env = JSON.parse(envJson.out).env as Record<string, string>;
  expectNameAbsent(env, name, "nccl-env -o json");
  expect(env.NCCL_IB_HCA ?? "").not.toContain(name);
  const shell = await cli(["nccl-env", "--snapshot", snap, "-o", "shell"]);
  expectTextSafe(shell.out, name, "nccl-env -o shell");
  // Sourced by a shell, the script sets exactly the JSON's variables to exactly its values, and runs nothing.
  const sourced = execFileSync("sh", ["-c", `cd "$2" && eval "$1" && env`, "sh", shell.out, dir], { encoding: "utf8" });
  const got = Object.fromEntries(
    sourced
      .split("\n")
      .filter((l) => /^(NCCL_|EVIL=)/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  expect(got).toEqual(env);

  for (const format of ["text", "json"]) {
    const g = await cli(["gids", "--snapshot", snap, "-o", format]);
    if (format === "json") {
      const rows = JSON.parse(g.out) as { device: string; netdev: string | null }[];
      expect(rows.some((row) => row.device === name || row.netdev === `eth3${name.slice(5)}`)).toBe(false);
      expect(rows.length).toBeGreaterThan(0);
    } else expectTextSafe(g.out, name, "gids text");
    expect(g.err).toMatch(/not\s+a\s+name\s+the\s+kernel\s+gives/);
  }
}

describe("hostile names from a host never change the structure of any output", () => {
  test("the cluster-admin document hidden in an HCA name is not in job pytorch / nccl-tests output", async () => {
    await expectAllOutputsSafe(`mlx5_${CLUSTER_ADMIN}`);
  }, 120_000);

  test("a newline in the hostname does not forge a PASS line in verify's text", async () => {
    const base = expandSnapshot(exampleSnapshot(EXAMPLE));
    base.files["/proc/sys/kernel/hostname"] = "node-1\nPASS: 0 error(s) forged\n";
    const file = join(dir, "hostname.json");
    writeFileSync(file, JSON.stringify(base));
    const r = await cli(["verify", "--snapshot", file]);
    expect(r.out.split("\n").some((l) => l.startsWith("PASS: 0 error(s) forged"))).toBe(false);
    expect(r.out).toMatch(/hostname named "node-1\\nPASS: 0 error\(s\)/);
    expect(r.code).toBe(1);
  }, 60_000);

  test("property: any mix of newlines, ---, #, quotes, ANSI, $(…) and backticks", async () => {
    await fc.assert(
      fc.asyncProperty(hostileName, async (name) => {
        await expectAllOutputsSafe(name);
      }),
      { numRuns: 6 },
    );
  }, 300_000);
});

describe("renderManifests writes its header as comments the yaml library builds", () => {
  test("a header line holding a newline and `---` stays one comment line: one document, no extra", async () => {
    const { renderManifests } = await import("../src/kube/job/render.js");
    const text = renderManifests([{ kind: "ConfigMap" }], ["ok", `NCCL_IB_HCA==${CLUSTER_ADMIN}`]);
    expect(kindsOf(text)).toEqual(["ConfigMap"]);
    expect(text.split("\n").filter((l) => l.startsWith("#"))).toHaveLength(2);
  });
});
