import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import type { Problem } from "../../core/result.js";
import { problem } from "../../core/result.js";
import { LINT_FINDINGS } from "./catalogue.js";
import { parseManifests } from "./documents.js";
import { isPreflightSupportObject } from "./preflight.js";
import { DEFAULT_LINT_OPTIONS, type LintOptions, lintWorkload } from "./rules.js";
import { isObj, pathString, workloadOf } from "./templates.js";
import { isTrainerKind, lintTrainJob, runtimeResources } from "./trainjob-rules.js";

export { LINT_FINDINGS } from "./catalogue.js";
export { parseManifests } from "./documents.js";
export { DEFAULT_LINT_OPTIONS, type LintOptions } from "./rules.js";
export { workloadOf } from "./templates.js";

/** One finding, located: file, document (1-based), line, object, container and field path. */
export type LintFinding = Finding & {
  file: string;
  document: number;
  line: number | null;
  kind: string;
  name: string;
  container: string | null;
  field: string;
};

export type LintFileResult = {
  file: string;
  objects: { document: number; kind: string; name: string }[];
  findings: LintFinding[];
  /** Invalid YAML (with line and column): the file could not be linted fully. */
  problems: Problem[];
};

/** Lints one multi-document YAML text. Pure. */
export function lintManifestText(text: string, file: string, opts: LintOptions = DEFAULT_LINT_OPTIONS): LintFileResult {
  const { documents, problems } = parseManifests(text, file);
  const result: LintFileResult = { file, objects: [], findings: [], problems };
  if (documents.length === 0 && problems.length === 0) {
    // A failed `helm template … | kube-rdma lint -` hands over nothing: that must not pass CI.
    problems.push(
      problem("lint.empty", `${file}: no manifest in it (the input is empty or holds only comments and ---).`, {
        path: file,
        hint: "Check the command that produced it (a failed `helm template` or `kustomize build` writes nothing to the pipe); lint needs at least one Kubernetes object.",
      }),
    );
  }
  const docItems = documents.map((doc) => ({
    doc,
    items:
      isObj(doc.value) && doc.value.kind === "List" && Array.isArray(doc.value.items)
        ? doc.value.items.map((item, i) => ({ value: item as unknown, prefix: ["items", i] as (string | number)[] }))
        : [{ value: doc.value, prefix: [] as (string | number)[] }],
  }));
  // A TrainJob is checked against the runtimes in the same file (Trainer merges the two).
  const runtimes = runtimeResources(docItems.flatMap((d) => d.items.map((i) => i.value)));
  for (const { doc, items } of docItems) {
    for (const { value, prefix } of items) {
      const kind = isObj(value) && typeof value.kind === "string" ? value.kind : "(no kind)";
      const name = isObj(value) && isObj(value.metadata) ? String(value.metadata.name ?? "(unnamed)") : "(unnamed)";
      result.objects.push({ document: doc.index + 1, kind, name });
      const base = { file, document: doc.index + 1, kind, name };
      const w = workloadOf(value);
      if (!w && isPreflightSupportObject(value)) continue;
      const located = w
        ? lintWorkload(w, opts)
        : isTrainerKind(value, ["TrainJob"])
          ? lintTrainJob(value as Record<string, unknown>, runtimes)
          : null;
      if (!located) {
        const where = `${kind}/${name}`;
        result.findings.push({
          ...makeFinding(LINT_FINDINGS, "UNKNOWN_KIND", where, { where, kind }),
          ...base,
          line: doc.lineOf([...prefix, "kind"]) ?? null,
          container: null,
          field: pathString([...prefix, "kind"]),
        });
        continue;
      }
      for (const { finding, location } of located) {
        const field = [...prefix, ...location.field];
        let line = doc.lineOf(field);
        for (let cut = field.length - 1; line === undefined && cut > 0; cut--) line = doc.lineOf(field.slice(0, cut));
        result.findings.push({
          ...finding,
          ...base,
          line: line ?? null,
          container: location.container,
          field: pathString(field),
        });
      }
    }
  }
  return result;
}
