/**
 * The images `kube-rdma job` uses by default, and the choice of an nccl-tests image the node's driver can run.
 * One list, one default per kind: every generator and help text reads them from here.
 */
import type { DriverInfo } from "../../inventory/types.js";
import { compareVersions, cudaAtMost, maxCudaForDriver, parseVersion } from "./cuda-driver.js";

/** The training image of pytorch/mpi/volcano/trainjob: see training-image.ts. */
export { DEFAULT_TRAINING_IMAGE } from "./training-image.js";

/** Published nccl-tests images (CoreWeave's builds of NVIDIA/nccl-tests with OpenMPI), newest CUDA first. */
export const NCCL_TESTS_IMAGES: readonly { image: string; cuda: string }[] = [
  { image: "ghcr.io/coreweave/nccl-tests:13.2.0-devel-ubuntu24.04-nccl2.29.7-1-7112046", cuda: "13.2" },
  { image: "ghcr.io/coreweave/nccl-tests:13.0.2-devel-ubuntu22.04-nccl2.29.2-1-d73ec07", cuda: "13.0" },
  { image: "ghcr.io/coreweave/nccl-tests:12.9.1-devel-ubuntu24.04-nccl2.29.2-1-d73ec07", cuda: "12.9" },
  { image: "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.26.2-1-0708d2e", cuda: "12.8" },
  { image: "ghcr.io/coreweave/nccl-tests:12.4.1-devel-ubuntu20.04-nccl2.27.3-1-d82e3c0", cuda: "12.4" },
  { image: "ghcr.io/coreweave/nccl-tests:11.8.0-cudnn8-devel-ubuntu20.04-nccl2.16.2-1-253a5b1", cuda: "11.8" },
];

export const DEFAULT_NCCL_TESTS_IMAGE = NCCL_TESTS_IMAGES[0]!.image;

/** The CUDA release an image tag names (`…:12.4.1-devel-…`, `…cuda11.4…`); null when the tag does not say. */
export function cudaOfImage(image: string): string | null {
  const known = NCCL_TESTS_IMAGES.find((i) => i.image === image);
  if (known) return known.cuda;
  const tag = image.slice(image.lastIndexOf(":") + 1);
  const m = /^(\d{2}\.\d)(?:\.\d+)?-(?:cudnn\d*-)?(?:devel|runtime|base)/.exec(tag) ?? /cuda-?(\d{2}\.\d)/i.exec(tag);
  return m ? m[1]! : null;
}

export type ImageChoice = { ok: true; image: string; notes: string[] } | { ok: false; message: string; hint: string };

/** The newest CUDA a driver runs: the table first, nvidia-smi's own "CUDA Version" when the table cannot say. */
function maxCudaOf(driver: DriverInfo | null): string | null {
  if (driver?.status !== "ok") return null;
  return (driver.driverVersion ? maxCudaForDriver(driver.driverVersion) : null) ?? driver.cudaVersion;
}

/**
 * CUDA minor version compatibility: a program built with any CUDA X.y runs on a driver at least the minimum of its
 * major release (11.x: 450.80.02, 12.x: 525.60.13, 13.x: 580.65.06), short of PTX newer than the driver
 * (https://docs.nvidia.com/deploy/cuda-compatibility/#minor-version-compatibility). nccl-tests images ship SASS.
 */
const MINOR_COMPAT_MIN_DRIVER: Record<string, string> = { "11": "450.80.02", "12": "525.60.13", "13": "580.65.06" };

function runsByMinorCompat(driver: string | null | undefined, cuda: string): boolean {
  const d = driver ? parseVersion(driver) : null;
  const min = MINOR_COMPAT_MIN_DRIVER[cuda.split(".")[0]!];
  return d !== null && min !== undefined && compareVersions(d, parseVersion(min)!) >= 0;
}

/** With no driver known: the newest CUDA 12 image (runs on any R525+ driver), not a CUDA 13 one (R580+). */
const CONSERVATIVE_NCCL_TESTS_IMAGE = NCCL_TESTS_IMAGES.find((i) => i.cuda.startsWith("12."))!;

/**
 * The nccl-tests image for a node's driver: the one asked for (checked against the driver when its tag names a CUDA
 * release), or the newest known image the driver runs; a refusal naming the override when none fits.
 */
export function chooseNcclTestsImage(o: {
  driver: DriverInfo | null;
  image?: string | undefined;
  skipDriverCheck: boolean;
}): ImageChoice {
  const max = maxCudaOf(o.driver);
  const driverText = `${o.driver?.driverVersion ?? "?"}`;
  const maxText = max === "newest" ? "every CUDA release in kube-rdma's table" : `CUDA ≤ ${max}`;
  const source = "(NVIDIA's CUDA toolkit release notes, CUDA Toolkit and Corresponding Driver Versions)";
  if (o.image !== undefined) {
    const cuda = cudaOfImage(o.image);
    if (max === null) return { ok: true, image: o.image, notes: [] };
    if (cuda === null) {
      return {
        ok: true,
        image: o.image,
        notes: [`the tag of ${o.image} names no CUDA release; the node's driver ${driverText} runs ${maxText}`],
      };
    }
    if (cudaAtMost(cuda, max) || o.skipDriverCheck) {
      const skipped = cudaAtMost(cuda, max) ? [] : [`--skip-driver-check: ${o.image} (CUDA ${cuda}) may not start`];
      return { ok: true, image: o.image, notes: skipped };
    }
    return refusal(`the image ${o.image} is built for CUDA ${cuda}`, driverText, maxText, source, max);
  }
  if (max === null) {
    const reason = o.driver ? "the node's driver version is unknown" : "no node source names the driver";
    const pick = CONSERVATIVE_NCCL_TESTS_IMAGE;
    return {
      ok: true,
      image: pick.image,
      notes: [
        `${reason}: the nccl-tests image chosen is built for CUDA ${pick.cuda} (runs on any driver ≥ ${MINOR_COMPAT_MIN_DRIVER["12"]}); ` +
          "give --image for another, or a node source (--example, --snapshot, --env-from-node) to pick by its driver",
      ],
    };
  }
  // The newest image the driver runs: by the release table, or by CUDA minor version compatibility.
  const fit = NCCL_TESTS_IMAGES.find(
    (i) => cudaAtMost(i.cuda, max) || runsByMinorCompat(o.driver?.driverVersion, i.cuda),
  );
  if (fit) {
    const compat = !cudaAtMost(fit.cuda, max);
    const notes =
      fit.image === DEFAULT_NCCL_TESTS_IMAGE
        ? []
        : compat
          ? [
              `nccl-tests image for CUDA ${fit.cuda}: the node's driver ${driverText} runs it through CUDA minor version compatibility (driver ≥ ${MINOR_COMPAT_MIN_DRIVER[fit.cuda.split(".")[0]!]})`,
            ]
          : [`nccl-tests image for CUDA ${fit.cuda}: the node's driver ${driverText} runs ${maxText} ${source}`];
    return { ok: true, image: fit.image, notes };
  }
  if (o.skipDriverCheck) {
    return {
      ok: true,
      image: DEFAULT_NCCL_TESTS_IMAGE,
      notes: [`--skip-driver-check: no known nccl-tests image runs on driver ${driverText} (${maxText})`],
    };
  }
  const oldest = NCCL_TESTS_IMAGES[NCCL_TESTS_IMAGES.length - 1]!;
  return refusal(
    `the oldest known nccl-tests image is built for CUDA ${oldest.cuda}`,
    driverText,
    maxText,
    source,
    max,
  );
}

function refusal(what: string, driver: string, maxText: string, source: string, max: string): ImageChoice {
  return {
    ok: false,
    message: `${what}, but the node's NVIDIA driver ${driver} runs ${maxText} ${source}: its pods would fail with "CUDA driver version is insufficient for CUDA runtime version".`,
    hint:
      `Give an nccl-tests image built for CUDA ≤ ${max} with --image (e.g. one built FROM nvidia/cuda:${max}.x-devel), ` +
      "or upgrade the node's driver; --skip-driver-check generates the job anyway (a CUDA 11.x/12.x image may still " +
      "run through CUDA minor version compatibility unless it JIT-compiles PTX).",
  };
}
