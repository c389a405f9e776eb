/** Checks shared by the tests of generated job manifests: lint-clean, valid against the CRDs and core models. */
import { expect } from "vitest";
import { parseAllDocuments } from "yaml";
import { lintManifestText } from "../../../src/kube/lint/index.js";
import { isPreflightSupportObject } from "../../../src/kube/lint/preflight.js";
import { validateCoreObject, validateCustomResource } from "./schemas.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

/** The pod templates of every job kind kube-rdma generates. */
export function podTemplates(o: Any): Any[] {
  if (isPreflightSupportObject(o)) return [];
  if (o.kind === "PyTorchJob") return Object.values(o.spec.pytorchReplicaSpecs).map((r: Any) => r.template);
  if (o.kind === "MPIJob") return Object.values(o.spec.mpiReplicaSpecs).map((r: Any) => r.template);
  if (o.kind === "ClusterTrainingRuntime" || o.kind === "TrainingRuntime") {
    return o.spec.template.spec.replicatedJobs.map((j: Any) => j.template.spec.template);
  }
  if (o.kind === "TrainJob") return [];
  return o.spec.tasks.map((t: Any) => t.template);
}

export const parseDocs = (yaml: string): Any[] => parseAllDocuments(yaml).map((d) => d.toJS() as Any);

/** The job itself among the generated documents (the preflight objects come before it). */
export const jobDoc = (yaml: string): Any => parseDocs(yaml).find((d) => !isPreflightSupportObject(d));

/** Generated YAML lints clean (no finding at all) and matches the published CRDs and core models. */
export function expectGeneratedValid(yaml: string, label = "generated.yaml"): void {
  const lint = lintManifestText(yaml, label);
  expect(lint.problems, label).toEqual([]);
  expect(
    lint.findings.map((f) => `${f.code} ${f.field}`),
    label,
  ).toEqual([]);
  for (const d of parseDocs(yaml)) {
    // The preflight rendezvous objects beside the job (ServiceAccount, Role, RoleBinding, ConfigMap) are core objects.
    if (isPreflightSupportObject(d)) {
      expect(validateCoreObject(d), `${label} ${d.kind}`).toEqual([]);
      continue;
    }
    for (const t of podTemplates(d)) expect(validateCoreObject(t, "V1PodTemplateSpec"), label).toEqual([]);
    expect(validateCustomResource(d), `${label} ${d.kind}`).toEqual([]);
  }
}
