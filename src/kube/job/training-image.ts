/**
 * The training image (NGC PyTorch) a node's driver runs. An NGC container runs on a driver of its CUDA release or
 * later, and on a data-center GPU also on the older driver branches its release notes list for forward
 * compatibility (the container ships the CUDA compatibility libraries). Source: each release's "Driver Requirements"
 * (https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel-24-05.html and the same page per
 * release) and CUDA Compatibility (https://docs.nvidia.com/deploy/cuda-compatibility/#forward-compatibility).
 */
import type { DriverInfo } from "../../inventory/types.js";
import { compareVersions, cudaAtMost, maxCudaForDriver, minDriverForCuda, parseVersion } from "./cuda-driver.js";

type TrainingImage = {
  image: string;
  cuda: string;
  /** The oldest driver of each branch that runs it in forward-compatibility mode on a data-center GPU. */
  forwardCompatible: readonly string[];
};

/** NGC PyTorch images kube-rdma knows, newest first; the first is the default. */
export const TRAINING_IMAGES: readonly TrainingImage[] = [
  {
    image: "nvcr.io/nvidia/pytorch:24.05-py3",
    cuda: "12.4",
    forwardCompatible: ["470.57", "525.85", "535.86", "545.23"],
  },
  { image: "nvcr.io/nvidia/pytorch:23.10-py3", cuda: "12.2", forwardCompatible: ["470.57", "525.85"] },
  { image: "nvcr.io/nvidia/pytorch:22.12-py3", cuda: "11.8", forwardCompatible: ["450.51", "470.57", "510.47"] },
];

export const DEFAULT_TRAINING_IMAGE = TRAINING_IMAGES[0]!.image;

/** Data-center GPU families (forward compatibility is for these, not for GeForce). */
const DATA_CENTER_GPU = /\b(?:[ABH]\d{2,3}[A-Z]?|GB\d{3}|L4\d?S?|L20|T4|V100|P100|P40|Tesla)\b/;

export function isDataCenterGpu(name: string): boolean {
  return DATA_CENTER_GPU.test(name.replace(/^NVIDIA\s+/i, ""));
}

/** Whether a driver version is at least the given one of the same branch (`535.104.05` vs `535.86`). */
function inBranchAtLeast(driver: readonly number[], min: string): boolean {
  const m = parseVersion(min)!;
  return driver[0] === m[0] && compareVersions(driver, m) >= 0;
}

type Runs = { native: boolean; forward: boolean };

function runs(image: TrainingImage, driverText: string, dataCenter: boolean): Runs {
  const driver = parseVersion(driverText);
  const max = maxCudaForDriver(driverText);
  const native = max !== null && cudaAtMost(image.cuda, max);
  const forward = dataCenter && driver !== null && image.forwardCompatible.some((m) => inBranchAtLeast(driver, m));
  return { native, forward };
}

export type TrainingImageChoice =
  | { ok: true; image: string; notes: string[] }
  | { ok: false; message: string; hint: string };

/** The newest known training image the node's driver runs (given --image always wins). */
export function chooseTrainingImage(o: {
  driver: DriverInfo | null;
  gpuNames: readonly string[];
  image?: string | undefined;
  skipDriverCheck: boolean;
}): TrainingImageChoice {
  if (o.image !== undefined) return { ok: true, image: o.image, notes: [] };
  const driverText = o.driver?.status === "ok" ? o.driver.driverVersion : null;
  const def = TRAINING_IMAGES[0]!;
  if (!driverText) {
    return {
      ok: true,
      image: def.image,
      notes: [
        `the node's driver is unknown: ${def.image} (CUDA ${def.cuda}) needs driver ≥ ${minDriverForCuda(def.cuda)}, ` +
          `or on a data-center GPU one of ${def.forwardCompatible.map((d) => `${d}+ (R${d.split(".")[0]})`).join(", ")}; ` +
          "give a node source (--example, --snapshot, --env-from-node) to pick by its driver, or --image",
      ],
    };
  }
  const dataCenter = o.gpuNames.length > 0 && o.gpuNames.every(isDataCenterGpu);
  for (const image of TRAINING_IMAGES) {
    const r = runs(image, driverText, dataCenter);
    if (!r.native && !r.forward) continue;
    const how = r.native
      ? `runs it natively (CUDA ${image.cuda} needs ≥ ${minDriverForCuda(image.cuda)})`
      : `runs it in forward-compatibility mode on these data-center GPUs (the image's CUDA ${image.cuda} compatibility libraries)`;
    const notes =
      image === def && r.native ? [] : [`training image ${image.image}: the node's driver ${driverText} ${how}`];
    return { ok: true, image: image.image, notes };
  }
  const oldest = TRAINING_IMAGES[TRAINING_IMAGES.length - 1]!;
  if (o.skipDriverCheck) {
    return {
      ok: true,
      image: def.image,
      notes: [`--skip-driver-check: no known training image runs on driver ${driverText}`],
    };
  }
  return {
    ok: false,
    message:
      `No known training image runs on the node's NVIDIA driver ${driverText}: the oldest, ${oldest.image}, is built ` +
      `for CUDA ${oldest.cuda} (driver ≥ ${minDriverForCuda(oldest.cuda)}` +
      `${dataCenter ? `, or forward compatibility on ${oldest.forwardCompatible.join(", ")}` : ""}).`,
    hint: "Give an image built for the node's CUDA with --image, or upgrade the node's driver; --skip-driver-check generates the job anyway.",
  };
}
