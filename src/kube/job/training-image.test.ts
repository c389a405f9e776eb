import { describe, expect, test } from "vitest";
import type { DriverInfo } from "../../inventory/types.js";
import { chooseTrainingImage, DEFAULT_TRAINING_IMAGE, isDataCenterGpu } from "./training-image.js";

const driver = (v: string): DriverInfo => ({ status: "ok", driverVersion: v, cudaVersion: null, error: null });
const pick = (v: string, gpus: string[]) =>
  chooseTrainingImage({ driver: driver(v), gpuNames: gpus, skipDriverCheck: false });

// NGC PyTorch release notes, "Driver Requirements": 24.05 (CUDA 12.4.1) needs R550, or on data-center GPUs R470.57+,
// R525.85+, R535.86+, R545.23+ in forward-compatibility mode; the CUDA toolkit table gives each release's minimum
// driver (https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel-24-05.html,
// https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/).
describe("the training image follows the node's driver", () => {
  test("R550 runs the default natively: no note", () => {
    expect(pick("550.90.07", ["NVIDIA H100 80GB HBM3"])).toEqual({
      ok: true,
      image: DEFAULT_TRAINING_IMAGE,
      notes: [],
    });
  });

  test("the A100 RoCE example's R470 on A100s: the default, in forward-compatibility mode, said in a note", () => {
    const c = pick("470.141.03", ["NVIDIA A100-SXM4-80GB"]);
    expect(c.ok && c.image).toBe(DEFAULT_TRAINING_IMAGE);
    expect(c.ok && c.notes[0]).toMatch(/470\.141\.03 runs it in forward-compatibility mode/);
  });

  test("R520 (not a forward-compatible branch) on A100s: the CUDA 11.8 image it runs natively", () => {
    const c = pick("520.61.05", ["NVIDIA A100-SXM4-80GB"]);
    expect(c.ok && c.image).toBe("nvcr.io/nvidia/pytorch:22.12-py3");
    expect(c.ok && c.notes[0]).toMatch(/runs it natively/);
  });

  test("R535 on GeForce cards (no forward compatibility): the CUDA 12.2 image, not 24.05", () => {
    const c = pick("535.104.05", ["NVIDIA GeForce RTX 4090"]);
    expect(c.ok && c.image).toBe("nvcr.io/nvidia/pytorch:23.10-py3");
  });

  test("a driver nothing runs on (R418 on V100): refused with --image and --skip-driver-check named", () => {
    const c = pick("418.67", ["Tesla V100-SXM2-32GB"]);
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.message).toMatch(/No known training image runs on the node's NVIDIA driver 418\.67/);
      expect(c.hint).toMatch(/--image/);
    }
    const forced = chooseTrainingImage({ driver: driver("418.67"), gpuNames: [], skipDriverCheck: true });
    expect(forced.ok && forced.image).toBe(DEFAULT_TRAINING_IMAGE);
  });

  test("an unknown driver: the default with a note on what it needs; --image always wins", () => {
    const c = chooseTrainingImage({ driver: null, gpuNames: [], skipDriverCheck: false });
    expect(c.ok && c.notes[0]).toMatch(/driver is unknown: .* needs driver ≥ 550\.54\.14/);
    const given = chooseTrainingImage({
      driver: driver("418.67"),
      gpuNames: [],
      image: "my/img:1",
      skipDriverCheck: false,
    });
    expect(given).toEqual({ ok: true, image: "my/img:1", notes: [] });
  });

  test("data-center GPU names", () => {
    for (const n of ["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "NVIDIA L40S", "Tesla T4", "NVIDIA H200"]) {
      expect([n, isDataCenterGpu(n)]).toEqual([n, true]);
    }
    for (const n of ["NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000"])
      expect([n, isDataCenterGpu(n)]).toEqual([n, false]);
  });
});
