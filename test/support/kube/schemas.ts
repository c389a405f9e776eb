/**
 * Validation of generated manifests against the real schemas:
 * - custom resources against the `openAPIV3Schema` of the published CRDs in test/schemas/crds (ajv, unknown
 *   `x-kubernetes-*` keywords allowed, formats not enforced);
 * - core objects against the Kubernetes OpenAPI models shipped in @kubernetes/client-node: every field must be
 *   one the model declares (`getAttributeTypeMap`), with its declared type, and fields the model's declaration
 *   marks as required (no `?` in the generated .d.ts) must be present.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k8s from "@kubernetes/client-node";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";

/** The published CRDs, carried in the repository (test/schemas/crds/README.md: upstream URL, version, licence). */
export const CRD_DIR = fileURLToPath(new URL("../../schemas/crds/", import.meta.url));

const CRD_FILES: Record<string, string> = {
  "kubeflow.org/v1/PyTorchJob": "kubeflow.org_pytorchjobs.v1.9.0.yaml",
  "kubeflow.org/v2beta1/MPIJob": "kubeflow.org_mpijobs.v2beta1.yaml",
  "batch.volcano.sh/v1alpha1/Job": "batch.volcano.sh_jobs.yaml",
  "scheduling.volcano.sh/v1beta1/PodGroup": "scheduling.volcano.sh_podgroups.yaml",
  "trainer.kubeflow.org/v1alpha1/TrainJob": "trainer.kubeflow.org_trainjobs.v2.3.0.yaml",
  "trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime": "trainer.kubeflow.org_clustertrainingruntimes.v2.3.0.yaml",
  "trainer.kubeflow.org/v1alpha1/TrainingRuntime": "trainer.kubeflow.org_trainingruntimes.v2.3.0.yaml",
};

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();

type CrdDoc = {
  spec: { versions: { name: string; served: boolean; schema: { openAPIV3Schema: object } }[] };
};

/**
 * The served version's schema. A missing CRD file fails loudly (never a skip): a checkout without
 * test/schemas/crds must not pass the schema tests by not running them.
 */
export function crdSchema(apiVersion: string, kind: string, dir: string = CRD_DIR): object {
  const key = `${apiVersion}/${kind}`;
  const file = CRD_FILES[key];
  if (!file) throw new Error(`no published CRD for ${key}`);
  const path = join(dir, file);
  if (!existsSync(path)) {
    throw new Error(
      `the published CRD schema for ${key} is missing: expected ${path}. The CRD schema tests need the ` +
        "published CRD YAML files in test/schemas/crds (see its README.md for where each comes from).",
    );
  }
  const doc = parse(readFileSync(path, "utf8")) as CrdDoc;
  const version = apiVersion.split("/")[1];
  const v = doc.spec.versions.find((x) => x.name === version && x.served);
  if (!v) throw new Error(`${file} serves no version ${version}`);
  return v.schema.openAPIV3Schema;
}

/** Errors of a custom resource against its CRD schema (empty = valid). */
export function validateCustomResource(obj: { apiVersion: string; kind: string }): string[] {
  const key = `${obj.apiVersion}/${obj.kind}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(crdSchema(obj.apiVersion, obj.kind));
    compiled.set(key, validate);
  }
  // Round-trip through JSON: the API server sees JSON, not our object identities.
  return validate(JSON.parse(JSON.stringify(obj)))
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}

const require = createRequire(import.meta.url);
const modelsDir = join(dirname(require.resolve("@kubernetes/client-node")), "gen", "models");
const requiredCache = new Map<string, Set<string>>();

function requiredFields(model: string): Set<string> {
  let set = requiredCache.get(model);
  if (!set) {
    const file = join(modelsDir, `${model}.d.ts`);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    set = new Set([...text.matchAll(/^ {4}'([^']+)': /gm)].map((m) => m[1]!));
    requiredCache.set(model, set);
  }
  return set;
}

type AttributeMap = { name: string; baseName: string; type: string }[];
type ModelClass = { getAttributeTypeMap(): AttributeMap };

function modelClass(type: string): ModelClass | undefined {
  const c = (k8s as unknown as Record<string, unknown>)[type];
  return typeof c === "function" && "getAttributeTypeMap" in c ? (c as unknown as ModelClass) : undefined;
}

function checkValue(value: unknown, type: string, path: string, errors: string[]): void {
  if (value === null || value === undefined) return;
  const arr = /^Array<(.+)>$/.exec(type);
  if (arr) {
    if (!Array.isArray(value)) return void errors.push(`${path}: expected an array (${type})`);
    value.forEach((v, i) => {
      checkValue(v, arr[1]!, `${path}[${i}]`, errors);
    });
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== "object" || Array.isArray(value)) return void errors.push(`${path}: expected a map (${type})`);
    for (const [k, v] of Object.entries(value)) checkValue(v, map[1]!, `${path}.${k}`, errors);
    return;
  }
  if (type === "string" || type === "Date") {
    if (typeof value !== "string") errors.push(`${path}: expected a string, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === "number") {
    if (typeof value !== "number") errors.push(`${path}: expected a number, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === "boolean") {
    if (typeof value !== "boolean") errors.push(`${path}: expected a boolean, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === "IntOrString") {
    if (typeof value !== "string" && typeof value !== "number") errors.push(`${path}: expected int or string`);
    return;
  }
  if (type === "any") return;
  const cls = modelClass(type);
  if (!cls) return void errors.push(`${path}: unknown model type ${type}`);
  if (typeof value !== "object" || Array.isArray(value))
    return void errors.push(`${path}: expected an object (${type})`);
  const attrs = cls.getAttributeTypeMap();
  const byName = new Map(attrs.map((a) => [a.baseName, a]));
  for (const [k, v] of Object.entries(value)) {
    const a = byName.get(k);
    if (!a) errors.push(`${path}.${k}: unknown field of ${type}`);
    else checkValue(v, a.type, `${path}.${k}`, errors);
  }
  for (const req of requiredFields(type)) {
    const a = attrs.find((x) => x.name === req);
    if (a && (value as Record<string, unknown>)[a.baseName] === undefined) {
      errors.push(`${path}.${a.baseName}: required by ${type}`);
    }
  }
}

/** Errors of a core object against its client-node model (`V1Pod`, `V1ClusterRole`, …). */
export function validateCoreObject(obj: { kind?: string }, model = `V1${obj.kind}`): string[] {
  const errors: string[] = [];
  checkValue(JSON.parse(JSON.stringify(obj)), model, obj.kind ?? model, errors);
  return errors;
}
