/**
 * `kube-rdma preflight --facts-only -o json` on example training pods, then `preflight diff` on the saved facts:
 * every difference is named with both sides, identical facts pass, unreadable input is exit 2.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { findExample } from "../examples/index.js";
import { materializeSnapshot } from "../examples/materialize.js";
import type { PodFacts } from "./types.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-preflight-"));

async function run(args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** Saves an example pod's facts as `<name>.json`, the way a user would with --facts-only -o json. */
async function saveFacts(example: string, name = example): Promise<string> {
  const r = await run(["preflight", "--facts-only", "--example", example, "-o", "json"]);
  expect(r.code).toBe(0);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, r.out);
  return file;
}

async function diffJson(...files: string[]) {
  const r = await run(["preflight", "diff", ...files, "-o", "json"]);
  return {
    code: r.code,
    report: JSON.parse(r.out) as { findings: { code: string; subject: string; message: string }[] },
  };
}

describe("preflight --facts-only", () => {
  test("a training pod's facts: openable uverbs, GID index, NCCL library and plugin with versions, NCCL env", async () => {
    const r = await run(["preflight", "--facts-only", "--example", "training-pod-uverbs-eperm", "-o", "json"]);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.out) as PodFacts;
    expect(f.kind).toBe("kube-rdma/preflight-facts");
    expect(f.dataHcas).toEqual(["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
    expect(f.hcas.find((h) => h.name === "mlx5_5")!.uverbs).toEqual([{ device: "uverbs5", open: "EPERM" }]);
    expect(f.hcas.find((h) => h.name === "mlx5_4")!.uverbs).toEqual([{ device: "uverbs4", open: "ok" }]);
    expect(f.hcas.find((h) => h.name === "mlx5_3")).toMatchObject({
      roceV2Ipv4Index: 3,
      address: "25.11.128.66",
      netdev: "eth3",
      subnet: "25.11.128.64/27",
    });
    expect(f.nccl.library).toEqual({
      path: "/usr/lib/x86_64-linux-gnu/libnccl.so.2",
      version: "2.11.4",
      versionFrom: "link target",
    });
    expect(f.nccl.netPlugins.map((p) => p.path)).toEqual(["/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"]);
    expect(f.env).toMatchObject({ NCCL_IB_GID_INDEX: "3", NCCL_SOCKET_IFNAME: "eth0" });
    expect(f.env).not.toHaveProperty("PATH");
    expect(f.gpus).toMatchObject({ count: 8, visibleDevices: "0,1,2,3,4,5,6,7" });
    expect(f.gpuDirect).toBe("peermem");
  });

  test("the same facts from a --root tree, where each uverbs device is really opened", async () => {
    const root = join(dir, "root-training-pod");
    materializeSnapshot(findExample("training-pod")!.snapshot(), root);
    const r = await run(["preflight", "--facts-only", "--root", root, "-o", "json"]);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.out) as PodFacts;
    expect(f.hcas.filter((h) => h.role === "data").flatMap((h) => h.uverbs.map((u) => u.open))).toEqual(
      Array(8).fill("ok"),
    );
    expect(f.nccl.library?.version).toBe("2.11.4");
  });

  test("a snapshot that never tried to open a device says not-tried, and that is no finding", async () => {
    const snap = findExample("training-pod")!.snapshot();
    for (const p of Object.keys(snap.files)) if (p.startsWith("/dev/infiniband/uverbs")) delete snap.files[p];
    const file = join(dir, "snap-training-pod.json");
    writeFileSync(file, JSON.stringify(snap));
    const r = await run(["preflight", "--facts-only", "--snapshot", file, "-o", "json"]);
    const f = JSON.parse(r.out) as PodFacts;
    expect(f.hcas.find((h) => h.name === "mlx5_1")!.uverbs).toEqual([{ device: "uverbs1", open: "not-tried" }]);
    const single = await run(["preflight", "--snapshot", file]);
    expect(single.code).toBe(0);
  });
});

describe("preflight diff", () => {
  test("identical facts: exit 0, no finding", async () => {
    const a = await saveFacts("training-pod", "worker-0");
    const b = await saveFacts("training-pod", "worker-1");
    expect(await diffJson(a, b)).toEqual({ code: 0, report: expect.objectContaining({ findings: [] }) });
    const text = await run(["preflight", "diff", a, b]);
    expect(text.out).toContain("PASS");
  });

  test.each([
    [
      "training-pod-gid-index-5",
      "PREFLIGHT_GID_INDEX_DIFFERS",
      "mlx5_5 RoCE v2 GID index: 3 on training-pod, 5 on training-pod-gid-index-5",
    ],
    [
      "training-pod-7-hcas",
      "PREFLIGHT_HCA_SET_DIFFERS",
      "data HCAs: mlx5_1..mlx5_7 on training-pod-7-hcas, mlx5_1..mlx5_8 on training-pod",
    ],
    [
      "training-pod-nccl-2.12",
      "PREFLIGHT_NCCL_VERSION_DIFFERS",
      "NCCL library: NCCL 2.11.4 on training-pod, NCCL 2.12.12 on training-pod-nccl-2.12",
    ],
    [
      "training-pod-uverbs-eperm",
      "PREFLIGHT_UVERBS_UNOPENABLE",
      "pod training-pod-uverbs-eperm: mlx5_5 cannot be opened (EPERM)",
    ],
  ])("training-pod against %s: %s names both sides, exit 1", async (other, code, message) => {
    const { code: exit, report } = await diffJson(await saveFacts("training-pod"), await saveFacts(other));
    expect(exit).toBe(1);
    expect(report.findings.map((f) => f.code)).toEqual([code]);
    expect(report.findings[0]!.message).toContain(message);
  });

  test("the fix of an unopenable HCA names a check that really sees it on the same pod (verify --pod cannot)", async () => {
    const { report } = await diffJson(await saveFacts("training-pod"), await saveFacts("training-pod-uverbs-eperm"));
    const fix = (report.findings[0] as unknown as { fix: string }).fix;
    expect(fix).toMatch(/kube-rdma preflight --facts-only.*mlx5_5:ok/);
    const facts = await run(["preflight", "--facts-only", "--example", "training-pod-uverbs-eperm"]);
    expect(facts.out).toMatch(/open .*mlx5_5:EPERM/);
    expect(fix).not.toMatch(/verify --pod/);
  });

  test("a file that is not pod facts, or cannot be read, is exit 2 with what was expected", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ kind: "kube-rdma/snapshot" }));
    const notFacts = await run(["preflight", "diff", bad]);
    expect(notFacts.code).toBe(2);
    expect(notFacts.err).toContain('not pod facts (expected "kind": "kube-rdma/preflight-facts")');
    const missing = await run(["preflight", "diff", join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("nope.json: cannot read (no such file)");
    const none = await run(["preflight", "diff"]);
    expect(none.code).toBe(2);
  });

  test("the facts of one pod alone, or one file given twice → exit 2 saying nothing was compared, never 'the pods agree'", async () => {
    const one = await saveFacts("training-pod", "worker-0");
    const alone = await run(["preflight", "diff", one]);
    expect(alone.code).toBe(2);
    expect(alone.err).toMatch(/got the facts of 1 pod .*worker-0\.json.*nothing to compare it with/);
    expect(alone.out).not.toContain("the pods agree");
    const twice = await run(["preflight", "diff", one, one]);
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/worker-0\.json is given twice: a pod compared with itself always agrees/);
    expect(twice.out).not.toContain("the pods agree");
  });
});

describe("hostile facts files: prototype keys are data, never a crash", () => {
  const edits: [string, (f: Record<string, never>) => void][] = [
    ["an HCA named __proto__", (f) => ((f.hcas as unknown as { name: string }[])[1]!.name = "__proto__")],
    ["a netdev named __proto__", (f) => ((f.netdevs as unknown as { name: string }[])[1]!.name = "__proto__")],
    ["an env key __proto__ (it is in every edited file's JSON text, below)", () => undefined],
    ["a pod named constructor", (f) => ((f as unknown as { pod: string }).pod = "constructor")],
  ];
  test.each(edits)("%s → a clear verdict (exit 0, 1 or 2), no TypeError", async (_name, edit) => {
    const good = await saveFacts("training-pod", "proto-base");
    const f = JSON.parse(readFileSync(good, "utf8"));
    edit(f);
    const bad = join(dir, "proto-edited.json");
    // JSON text with a literal "__proto__" key, as an attacker would write it (not an object's prototype).
    writeFileSync(bad, JSON.stringify(f).replace('"env":{', '"env":{"__proto__":"x",'));
    const r = await run(["preflight", "diff", good, bad]);
    expect([0, 1, 2]).toContain(r.code);
    expect(r.err).not.toMatch(/TypeError|internal error|charCodeAt/);
  });
});
