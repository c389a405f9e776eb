/**
 * A container must run a program its image carries. A pod whose container (or init container) runs a program the
 * image lacks never starts: the runtime fails it with `exec: "kube-rdma": executable file not found in $PATH`
 * (StartError / CrashLoopBackOff), and a Job or gang then waits forever for it. The programs whose presence depends on
 * the image (kube-rdma, the MPI workers' sshd) are checked against what src/kube/image-contents.ts knows of each image:
 * kube-rdma in any image but its own is an error; sshd in an image known to lack it (NGC PyTorch) is an error; an
 * image whose contents are not known is not judged for sshd.
 */
import { makeFinding } from "../../core/finding.js";
import { KUBE_RDMA_IMAGE_REPOSITORY } from "../image.js";
import {
  imageCarries,
  PYTORCH_MPI_DOCKERFILE,
  PYTORCH_MPI_REPOSITORY,
  TRACKED_PROGRAMS,
  type TrackedProgram,
} from "../image-contents.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import type { LocatedFinding } from "./rules.js";
import { isObj, type Json, type Path, type PodTemplateRef, type WorkloadObject } from "./templates.js";

/** The program a container starts: the first word of command, or the first word of an `sh -c` script. */
export function programOf(c: Json): { program: string; field: "command" | "args" } | null {
  const command = Array.isArray(c.command) ? c.command.map(String) : [];
  const args = Array.isArray(c.args) ? c.args.map(String) : [];
  if (command.length === 0) return null; // the image's own entrypoint: known to the image
  const words = [...command, ...args];
  const shell = /^(?:\/usr)?(?:\/bin\/)?(?:sh|bash|dash|ash|zsh)$/.test(words[0]!) && words[1] === "-c";
  const first = shell
    ? ((words[2] ?? "")
        .trim()
        .replace(/^exec\s+/, "")
        .split(/\s+/)[0] ?? "")
    : words[0]!;
  const field = shell && command.length < 3 ? "args" : "command";
  return { program: first.split("/").at(-1) ?? first, field };
}

/** The image's repository name without registry, tag or digest: `ghcr.io/kube-rdma/kube-rdma:0.1.0` → `kube-rdma`. */
export function imageName(image: string): string {
  const noDigest = image.split("@")[0] ?? image;
  const last = noDigest.split("/").at(-1) ?? noDigest;
  return last.split(":")[0] ?? last;
}

/** Whether the image is one known to carry kube-rdma: ours, or a mirror of it (same repository name). */
export function carriesKubeRdma(image: string): boolean {
  return imageCarries(image, "kube-rdma") === true;
}

/** The programs a shell script hands its process to (`exec PROGRAM …`), by base name. */
function execedPrograms(script: string): string[] {
  return [...script.matchAll(/(?:^|[;&|]\s*|\n\s*)exec\s+([^\s;&|]+)/g)].map((m) => m[1]!.split("/").at(-1)!);
}

/** Every program the container starts: the first (programOf) and those its shell script execs. */
export function programsOf(c: Json): { program: string; field: "command" | "args" }[] {
  const first = programOf(c);
  if (!first) return [];
  const words = [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])].map(String);
  const shell = /^(?:\/usr)?(?:\/bin\/)?(?:sh|bash|dash|ash|zsh)$/.test(words[0] ?? "") && words[1] === "-c";
  const more = shell ? execedPrograms(words[2] ?? "").map((program) => ({ program, field: first.field })) : [];
  return [first, ...more.filter((m) => m.program !== first.program)];
}

const WHERE_TO_GET: Record<TrackedProgram, string> = {
  "kube-rdma": `${KUBE_RDMA_IMAGE_REPOSITORY}:TAG, built from the Dockerfile at the repository root`,
  sshd: `${PYTORCH_MPI_REPOSITORY}:TAG, built from ${PYTORCH_MPI_DOCKERFILE}`,
};

export function imageProgramRules(w: WorkloadObject): LocatedFinding[] {
  const out: LocatedFinding[] = [];
  const check = (t: PodTemplateRef, list: "containers" | "initContainers") => {
    const items = Array.isArray(t.spec[list]) ? (t.spec[list] as unknown[]) : [];
    items.forEach((raw, index) => {
      if (!isObj(raw)) return;
      const c = raw as Json;
      const image = typeof c.image === "string" ? c.image : "";
      for (const run of programsOf(c)) {
        const tracked = TRACKED_PROGRAMS.find((p) => p === run.program);
        if (tracked === undefined || imageCarries(image, tracked) !== false) continue;
        report(c, index, run.program, image, WHERE_TO_GET[tracked]);
      }
    });
    function report(c: Json, index: number, program: string, image: string, expected: string) {
      const name = String(c.name ?? `#${index}`);
      const kind = list === "initContainers" ? "init container" : "container";
      const where = `${w.kind}/${w.name} ${kind} ${name}`;
      const field: Path = [...t.specPath, list, index, "image"];
      out.push({
        finding: makeFinding(L, "IMAGE_LACKS_PROGRAM", where, {
          where,
          program,
          image: image || "(no image)",
          expected,
        }),
        location: { container: name, field },
      });
    }
  };
  for (const t of w.templates) {
    check(t, "containers");
    check(t, "initContainers");
  }
  return out;
}
