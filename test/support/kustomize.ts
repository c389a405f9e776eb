/**
 * Renders deploy/'s overlays the way `kubectl apply -k` does: with `kubectl kustomize` itself where kubectl is
 * installed (the judge), else with the part of kustomize that deploy/ uses: `resources` (files, or directories with
 * their own kustomization.yaml), `images` (name → newName/newTag/digest), `replacements` (one source field copied to
 * target fields; `[name=x]` list selectors) and `patches` with a `target` kind (a strategic-merge patch: maps merge, lists of
 * named objects merge by name, other lists replace). A kustomization using anything else is refused, so this stays honest about what it checked.
 * Objects come out in kustomize's legacy apply order.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse, parseAllDocuments } from "yaml";

// biome-ignore lint/suspicious/noExplicitAny: manifests are plain JSON here.
export type Obj = Record<string, any>;

const KNOWN = new Set(["apiVersion", "kind", "resources", "images", "patches", "replacements"]);

/** kustomize's legacy order (api/resid/gvk.go): these kinds first, webhooks last, the rest between by kind. */
const FIRST = [
  "Namespace",
  "ResourceQuota",
  "StorageClass",
  "CustomResourceDefinition",
  "ServiceAccount",
  "PodSecurityPolicy",
  "Role",
  "ClusterRole",
  "RoleBinding",
  "ClusterRoleBinding",
  "ConfigMap",
  "Secret",
  "Endpoints",
  "Service",
  "LimitRange",
  "PriorityClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "Deployment",
  "StatefulSet",
  "CronJob",
  "PodDisruptionBudget",
];
const LAST = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

function rank(kind: string): number {
  const f = FIRST.indexOf(kind);
  if (f >= 0) return f;
  const l = LAST.indexOf(kind);
  return l >= 0 ? 1000 + l : 500;
}

/** Lists of named objects (containers, env, ports, volumes) merge by name, as a strategic-merge patch does. */
const byName = (a: unknown, b: unknown): a is Obj[] =>
  Array.isArray(a) && Array.isArray(b) && b.every((x) => x && typeof x === "object" && typeof x.name === "string");

function merge(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && typeof target[k] === "object" && target[k]) {
      merge(target[k], v);
    } else if (byName(target[k], v)) {
      for (const item of v as Obj[]) {
        const at = (target[k] as Obj[]).find((x) => x?.name === item.name);
        if (at) merge(at, item);
        else (target[k] as Obj[]).push(structuredClone(item));
      }
    } else target[k] = structuredClone(v);
  }
}

function setImages(o: Obj, images: Obj[]): void {
  const visit = (spec: Obj | undefined) => {
    for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
      for (const img of images) {
        const [repo] = String(c.image).split(/[:@]/);
        if (repo !== img.name) continue;
        const name = img.newName ?? img.name;
        c.image = img.digest ? `${name}@${img.digest}` : `${name}:${img.newTag ?? String(c.image).split(":")[1]}`;
      }
    }
  };
  visit(o.spec?.template?.spec);
  visit(o.spec);
}

/** `a.b.[name=x].c` → the steps, a `[k=v]` step selecting the list item whose k is v. */
function steps(path: string): (string | [string, string])[] {
  return path.split(".").map((p) => {
    const m = /^\[([^=]+)=(.*)\]$/.exec(p);
    return m ? ([m[1]!, m[2]!] as [string, string]) : p;
  });
}

function getPath(o: Obj, path: string): unknown {
  let cur: unknown = o;
  for (const s of steps(path)) {
    if (cur === undefined || cur === null) return undefined;
    cur = typeof s === "string" ? (cur as Obj)[s] : (cur as Obj[]).find((x) => x?.[s[0]] === s[1]);
  }
  return cur;
}

function setPath(o: Obj, path: string, value: unknown): void {
  const all = steps(path);
  const parent = getPath(
    o,
    all
      .slice(0, -1)
      .map((s) => (typeof s === "string" ? s : `[${s[0]}=${s[1]}]`))
      .join("."),
  );
  const last = all.at(-1);
  if (parent && typeof last === "string") (parent as Obj)[last] = value;
  else throw new Error(`replacement target ${path} not found in ${o.kind}/${o.metadata?.name}`);
}

function replace(objects: Obj[], r: Obj): void {
  const hit = (sel: Obj) => (o: Obj) =>
    (!sel.kind || o.kind === sel.kind) && (!sel.name || o.metadata?.name === sel.name);
  const source = objects.find(hit(r.source));
  if (!source) throw new Error(`replacement source ${r.source.kind}/${r.source.name} not found`);
  const value = getPath(source, r.source.fieldPath);
  for (const t of r.targets as Obj[]) {
    for (const o of objects.filter(hit(t.select))) for (const f of t.fieldPaths as string[]) setPath(o, f, value);
  }
}

let kubectl: boolean | undefined;
/** Whether kubectl (and its built-in kustomize) is on PATH. */
export function hasKubectl(): boolean {
  if (kubectl === undefined) {
    try {
      execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
      kubectl = true;
    } catch {
      kubectl = false;
    }
  }
  return kubectl;
}

/**
 * Renders the kustomization in `dir`: its objects, in the order kubectl apply -k sends them — by `kubectl kustomize`
 * where kubectl is installed, else by this file's renderer.
 */
export function kustomizeBuild(dir: string): Obj[] {
  if (hasKubectl()) {
    const text = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 16 << 20 });
    return parseAllDocuments(text)
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => o !== null);
  }
  return renderHere(dir);
}

/** This file's renderer (see the header); exported so a test can compare it with kubectl's. */
export function renderHere(dir: string): Obj[] {
  const file = join(dir, "kustomization.yaml");
  if (!existsSync(file)) throw new Error(`${dir} has no kustomization.yaml`);
  const k = parse(readFileSync(file, "utf8")) as Obj;
  const unknown = Object.keys(k).filter((key) => !KNOWN.has(key));
  if (unknown.length)
    throw new Error(`${file} uses ${unknown.join(", ")}, which this test renderer does not implement`);
  const objects: Obj[] = [];
  for (const r of (k.resources ?? []) as string[]) {
    const path = join(dir, r);
    if (statSync(path).isDirectory()) objects.push(...renderHere(path));
    else {
      for (const d of parseAllDocuments(readFileSync(path, "utf8"))) {
        const o = d.toJS() as Obj | null;
        if (o) objects.push(o);
      }
    }
  }
  for (const p of (k.patches ?? []) as Obj[]) {
    const patch = parse(p.patch) as Obj;
    for (const o of objects) {
      if (p.target?.kind && o.kind !== p.target.kind) continue;
      if (p.target?.name && o.metadata?.name !== p.target.name) continue;
      const { metadata: _m, apiVersion: _a, kind: _k, ...body } = patch;
      merge(o, body);
    }
  }
  for (const o of objects) setImages(o, (k.images ?? []) as Obj[]);
  for (const r of (k.replacements ?? []) as Obj[]) replace(objects, r);
  return objects
    .map((o, i) => ({ o, i }))
    .sort(
      (a, b) =>
        rank(a.o.kind) - rank(b.o.kind) || (rank(a.o.kind) === 500 ? a.o.kind.localeCompare(b.o.kind) : 0) || a.i - b.i,
    )
    .map((x) => x.o);
}

export const repoDir = (path: string) => join(dirname(new URL(import.meta.url).pathname), "..", "..", path);
