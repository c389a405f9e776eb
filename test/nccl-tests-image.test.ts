/**
 * An nccl-tests job must run on the node's driver: the image's CUDA release is checked against NVIDIA's table of
 * CUDA releases and their minimum drivers (the CUDA toolkit release notes).
 */
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadInventory } from "../src/cli/commands/nccl-env.js";
import { main } from "../src/cli/main.js";
import { CUDA_DRIVER_TABLE, maxCudaForDriver } from "../src/kube/job/cuda-driver.js";
import { cudaOfImage, DEFAULT_NCCL_TESTS_IMAGE, NCCL_TESTS_IMAGES } from "../src/kube/job/images.js";
import { captureIo } from "./support/io.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function job(...args: string[]) {
  const io = captureIo();
  const code = await main(["job", "nccl-tests", ...args], io);
  const images = io.out
    ? parseAllDocuments(io.out).flatMap((d) =>
        Object.values((d.toJS() as Any).spec?.mpiReplicaSpecs ?? {}).map(
          (r: Any) => r.template.spec.containers[0].image,
        ),
      )
    : [];
  return { code, out: io.out, err: io.err, images };
}

describe("nccl-tests image vs the node's driver", () => {
  // CUDA minor version compatibility: any 11.x runs on a driver ≥ 450.80.02, any 12.x on ≥ 525.60.13
  // (https://docs.nvidia.com/deploy/cuda-compatibility/#minor-version-compatibility).
  test("the A100 RoCE example node (driver 470.141.03) gets the CUDA 11.8 image through minor version compatibility, with a note", async () => {
    const r = await job("--example", "a100-8x-roce");
    expect(r.code).toBe(0);
    expect(new Set(r.images)).toEqual(
      new Set(["ghcr.io/coreweave/nccl-tests:11.8.0-cudnn8-devel-ubuntu20.04-nccl2.16.2-1-253a5b1"]),
    );
    expect(r.out).toMatch(
      /driver 470\.141\.03 runs it through CUDA minor version compatibility \(driver ≥ 450\.80\.02\)/,
    );
  });

  test("a driver older than any image's minor-compatibility floor (R440, CUDA 10.2) is refused, naming the overrides", async () => {
    const { chooseNcclTestsImage } = await import("../src/kube/job/images.js");
    const r = chooseNcclTestsImage({
      driver: { status: "ok", driverVersion: "440.33.01", cudaVersion: "10.2" } as never,
      skipDriverCheck: false,
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/driver 440\.33\.01 runs CUDA ≤ 10\.2/);
    expect(!r.ok && r.hint).toMatch(/--skip-driver-check/);
  });

  test("an --image whose tag names CUDA 11.4 is taken; one naming CUDA 12.4 is refused unless --skip-driver-check", async () => {
    const old = await job(
      "--example",
      "a100-8x-roce",
      "--image",
      "registry.example/nccl-tests:11.4.3-devel-ubuntu20.04",
    );
    expect(old.code).toBe(0);
    expect(old.images).toEqual(Array(2).fill("registry.example/nccl-tests:11.4.3-devel-ubuntu20.04"));
    const newer = "ghcr.io/coreweave/nccl-tests:12.4.1-devel-ubuntu20.04-nccl2.27.3-1-d82e3c0";
    const refused = await job("--example", "a100-8x-roce", "--image", newer);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/built for CUDA 12\.4/);
    const forced = await job("--example", "a100-8x-roce", "--image", newer, "--skip-driver-check");
    expect(forced.code).toBe(0);
    expect(forced.out).toMatch(/^# --skip-driver-check: .* may not start$/m);
  });

  test("the H100 example node (driver R535) gets the newest CUDA 12 image (12.9) through minor version compatibility, not CUDA 11.8", async () => {
    const r = await job("--example", "h100-18hca");
    expect(r.code).toBe(0);
    expect(new Set(r.images)).toEqual(
      new Set(["ghcr.io/coreweave/nccl-tests:12.9.1-devel-ubuntu24.04-nccl2.29.2-1-d73ec07"]),
    );
    expect(r.out).toMatch(
      /^# nccl-tests image for CUDA 12\.9: the node's driver 535\.161\.08 runs it through CUDA minor version compatibility/m,
    );
  });

  test("without a node source a conservative image (CUDA 12, any R525+ driver) is used, not a CUDA 13 one, and the note says so", async () => {
    const r = await job();
    expect(new Set(r.images)).not.toContain(DEFAULT_NCCL_TESTS_IMAGE);
    expect(r.images[0]).toMatch(/nccl-tests:12\.9/);
    expect(r.out).toMatch(
      /no node source names the driver: the nccl-tests image chosen is built for CUDA 12\.9 \(runs on any driver ≥ 525\.60\.13\)/,
    );
  });
});

describe("the driver → CUDA table", () => {
  test.each([
    ["470.141.03", "11.4"],
    ["470.42.01", "11.4"],
    ["470.42.00", "11.3"],
    ["535.161.08", "12.2"],
    ["550.54.14", "12.4"],
    ["580.65.06", "13.0"],
    ["595.10", "newest"],
    ["440.33", "10.2"],
    ["390.1", null],
    ["n/a", null],
  ])("driver %s runs up to CUDA %s", (driver, cuda) => {
    expect(maxCudaForDriver(driver)).toBe(cuda);
  });

  test("it agrees with the CUDA Version nvidia-smi reports on the example hosts", async () => {
    for (const name of ["a100-8x-roce", "h100-18hca"]) {
      const { driver } = await loadInventory({ example: name });
      expect(maxCudaForDriver(driver.driverVersion!), name).toBe(driver.cudaVersion);
    }
  });

  test("rows are newest first with rising drivers, and every known image's tag says its CUDA release", () => {
    const drivers = CUDA_DRIVER_TABLE.map((r) => r.minDriver.split(".").map(Number));
    for (let i = 1; i < drivers.length; i++) expect(drivers[i - 1]![0]!).toBeGreaterThanOrEqual(drivers[i]![0]!);
    for (const i of NCCL_TESTS_IMAGES) expect(i.image).toContain(`:${i.cuda}.`);
    expect(cudaOfImage("my/nccl-tests:cuda11.4-ubuntu20.04")).toBe("11.4");
    expect(cudaOfImage("my/nccl-tests:latest")).toBeNull();
  });
});
