/**
 * A verdict never rests on missing data. The kernel's ib_core exposes each port's `state` (`4: ACTIVE`),
 * `phys_state` (`5: LinkUp`) and `rate` under /sys/class/infiniband/<dev>/ports/<n>/
 * (https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-class-infiniband): when a data port's files cannot be
 * read, nothing shows its link is up, so verify fails and the agent never reports RDMAReady=True. A device listed in
 * /sys/class/infiniband whose directory is a symlink loop (ELOOP, https://man7.org/linux/man-pages/man7/path_resolution.7.html)
 * is named, never silently dropped from the data NICs.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { expandSnapshot } from "../src/host/snapshot.js";
import { exampleSnapshot } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-unreadable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** The A100 RoCE example with every port's state, phys_state and rate gone (unreadable). */
function unreadablePorts(): string {
  const s = expandSnapshot(exampleSnapshot("a100-8x-roce"));
  const gone = /\/ports\/\d+\/(state|phys_state|rate)$/;
  for (const p of Object.keys(s.files)) if (gone.test(p)) delete s.files[p];
  for (const [d, names] of Object.entries(s.dirs)) {
    s.dirs[d] = names.filter((n) => !gone.test(`${d}/${n}`));
  }
  const file = join(dir, "unreadable.json");
  writeFileSync(file, JSON.stringify(s));
  return file;
}

describe("a data port whose link state cannot be read is an error", () => {
  test("verify: PORT_STATE_UNREADABLE for each of the 8 data ports, exit 1 (not 'WARN … 8 port(s) not up', exit 0)", async () => {
    const r = await cli(["verify", "--snapshot", unreadablePorts(), "-o", "json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out) as { findings: { code: string; severity: string; subject: string }[] };
    const unreadable = out.findings.filter((f) => f.code === "PORT_STATE_UNREADABLE");
    expect(unreadable.map((f) => f.subject)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `mlx5_${i}`));
    expect(unreadable.every((f) => f.severity === "error")).toBe(true);
  });

  test("agent --once --dry-run: RDMAReady False, reason PORT_STATE_UNREADABLE", async () => {
    const snap = unreadablePorts();
    const r = await cli(["agent", "--once", "--dry-run", "--snapshot", snap, "--node-name", "gpu-n1", "-o", "json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out);
    expect(out.condition).toMatchObject({ type: "RDMAReady", status: "False", reason: "PORT_STATE_UNREADABLE" });
  });
});

describe("an RDMA device behind a symlink loop is named", () => {
  test("verify --root: HCA_UNREADABLE mlx5_3 (error), not 7 data NICs and a pass", async () => {
    const root = join(dir, "loop");
    materializeSnapshot(exampleSnapshot("a100-8x-roce"), root);
    const link = join(root, "sys/class/infiniband/mlx5_3");
    rmSync(link, { recursive: true, force: true });
    symlinkSync("mlx5_3", link); // mlx5_3 → mlx5_3: ELOOP on every path below it
    const r = await cli(["verify", "--root", root, "-o", "json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out) as { findings: { code: string; severity: string; subject: string }[] };
    expect(out.findings).toContainEqual(
      expect.objectContaining({ code: "HCA_UNREADABLE", subject: "mlx5_3", severity: "error" }),
    );
  });
});
