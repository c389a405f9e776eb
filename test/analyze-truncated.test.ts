import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { capture } from "./support/captures.js";
import { captureIo } from "./support/io.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-cut-"));
function writeTemp(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The first `n` lines of a fixture capture, written to a file the way a cut paste would be. */
const cutCapture = (kind: string, name: string, lines: number) =>
  writeTemp(`${name}-head.txt`, `${capture(kind, name).split("\n").slice(0, lines).join("\n")}\n`);

describe("a capture cut before anything checkable is never a PASS", () => {
  test("a training log of a run without NCCL_DEBUG=INFO, read as an NCCL log (--kind nccl_log) → not analysed, exit 2", async () => {
    const io = captureIo();
    const log = writeTemp("train.log", "epoch 1 loss 0.52\nepoch 2 loss 0.41\nsaving checkpoint to /ckpt/step-200\n");
    expect(await main(["analyze", "--kind", "nccl_log", log], io)).toBe(2);
    expect(io.out).toMatch(/problem nccl_log\.no_nccl_lines: No NCCL line in 3 line\(s\)/);
    expect(io.out).toContain("Set NCCL_DEBUG=INFO");
    expect(io.out).toMatch(/^FAIL: .*1 not analysed$/m);
    const json = captureIo();
    expect(await main(["analyze", "--kind", "nccl_log", log, "-o", "json"], json)).toBe(2);
    expect(JSON.parse(json.out)[0]).toMatchObject({ kind: "nccl_log", data: null });
  });

  test("nvidia-smi pasted up to its header only → read in part: the versions reported, exit 2, it says no GPU was checked", async () => {
    const io = captureIo();
    const file = cutCapture("nvidia_smi", "a100-470", 3);
    const code = await main(["analyze", file], io);
    expect(code).toBe(2);
    expect(io.out).toMatch(/problem nvidia_smi\.no_gpus: .*No GPU was checked/);
    expect(io.out).toContain("GPU table not in the capture; driver 470.141.03, CUDA 11.4");
    expect(io.out).toMatch(/^FAIL: .*1 read in part \(gpus not in the capture\)$/m);
    expect(io.out).not.toMatch(/^PASS/m);
    // JSON: the versions in data, `unread` names what the capture did not hold (a script never reads "no GPU").
    const json = captureIo();
    expect(await main(["analyze", file, "-o", "json"], json)).toBe(2);
    expect(JSON.parse(json.out)[0]).toMatchObject({
      kind: "nvidia_smi",
      data: { driverVersion: "470.141.03", cudaVersion: "11.4", gpus: [], gpuTableRead: false },
      unread: ["gpus"],
    });
  });

  test("nvidia-smi topo -m cut after GPU3's row → the summary speaks for GPU0–GPU3 only and names GPU4–GPU7 unchecked", async () => {
    const io = captureIo();
    const code = await main(["analyze", cutCapture("nvidia_smi_topo", "a100-roce-470", 5)], io);
    expect(code).toBe(0);
    expect(io.out).toContain(
      "4 of the 4 GPU rows read have a NIC at PIX/PXB; GPU4, GPU5, GPU6, GPU7 not checked (row missing or cut)",
    );
    expect(io.out).not.toContain("every GPU has a NIC");
    expect(io.out).toMatch(/problem nvidia_smi_topo\.missing_rows/);
  });

  test("nvidia-smi topo -m cut after its header row → not analysed, exit 2", async () => {
    const io = captureIo();
    const code = await main(["analyze", cutCapture("nvidia_smi_topo", "a100-roce-470", 1)], io);
    expect(code).toBe(2);
    expect(io.out).toMatch(/problem nvidia_smi_topo\.no_rows: .*No GPU↔NIC path was checked/);
    expect(io.out).not.toMatch(/^PASS/m);
  });

  test("show_gids cut after its header → not analysed (exit 2), not 'no RDMA port has even a link-local GID'", async () => {
    const io = captureIo();
    const code = await main(["analyze", cutCapture("show_gids", "a100-roce-tabs", 2)], io);
    expect(code).toBe(2);
    expect(io.out).toMatch(/problem show_gids\.no_rows: .*No GID was checked/);
    expect(io.out).not.toContain("GID_TABLE_EMPTY");
  });

  test("ibv_devinfo and ibstat cut before mlx5_0's first port → not analysed (exit 2), never '1 device' PASS", async () => {
    for (const [kind, name] of [
      ["ibv_devinfo", "a100-roce-verbose"],
      ["ibstat", "a100-roce"],
    ] as const) {
      const io = captureIo();
      const code = await main(["analyze", cutCapture(kind, name, 2)], io);
      expect(code).toBe(2);
      expect(io.out).toMatch(new RegExp(`problem ${kind}\\.no_ports: mlx5_0 named but no port`));
      expect(io.out).not.toMatch(/^PASS/m);
    }
  });
});
