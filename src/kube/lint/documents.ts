import { type Document, LineCounter, parseAllDocuments } from "yaml";
import { type Problem, problem } from "../../core/result.js";

export type ManifestDocument = {
  /** 0-based index of the document in its file. */
  index: number;
  value: unknown;
  /** 1-based line of the node at a field path, when it can be found. */
  lineOf: (path: readonly (string | number)[]) => number | undefined;
};

/** Splits multi-document YAML; syntax errors become problems with line and column. Pure. */
export function parseManifests(text: string, file: string): { documents: ManifestDocument[]; problems: Problem[] } {
  const lineCounter = new LineCounter();
  const problems: Problem[] = [];
  const documents: ManifestDocument[] = [];
  let docs: Document.Parsed[];
  try {
    // A key given twice is refused, as kubectl apply (strict field validation) refuses it: lint must not judge one
    // value while the API server would never see the object.
    docs = parseAllDocuments(text, { lineCounter }) as Document.Parsed[];
  } catch (err) {
    return { documents, problems: [problem("yaml.invalid", `${file}: ${String(err)}`, { path: file })] };
  }
  if (!Array.isArray(docs)) docs = [];
  docs.forEach((doc, index) => {
    const errors = doc.errors;
    if (errors.length) {
      // The parser often reports one mistake several times at the same place (a flow map not closed): once each.
      const seen = new Set<string>();
      for (const e of errors) {
        const pos = e.linePos?.[0];
        const at = pos ? `${pos.line}:${pos.col}` : "?";
        if (seen.has(at)) continue;
        seen.add(at);
        problems.push(
          problem(
            "yaml.invalid",
            `${file}:${pos ? `${pos.line}:${pos.col}` : "?"}: invalid YAML in document ${index + 1}: ${e.message.split("\n")[0]}`,
            {
              path: file,
              ...(pos ? { line: pos.line } : {}),
              hint: "Fix the YAML at that line and column (indentation, a missing colon or quote).",
            },
          ),
        );
      }
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // Unresolved aliases and alias bombs surface only when converting.
      problems.push(
        problem(
          "yaml.invalid",
          `${file}: invalid YAML in document ${index + 1}: ${err instanceof Error ? err.message : String(err)}`,
          {
            path: file,
          },
        ),
      );
      return;
    }
    if (value === null || value === undefined) return;
    const notObject = notAManifest(value);
    if (notObject) {
      // A values file, a stray list or binary junk (YAML reads it as one long string) holds no object to lint:
      // never a silent "(no kind) skipped" PASS.
      const line = doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : undefined;
      problems.push(
        problem(
          "lint.not_manifest",
          `${file}${line ? `:${line}` : ""}: document ${index + 1} is not a Kubernetes object: expected a mapping with apiVersion and kind, found ${notObject}.`,
          {
            path: file,
            ...(line ? { line } : {}),
            hint: "Pass rendered manifests (a Helm values file or a kustomization is not one: run `helm template` or `kustomize build` and lint its output).",
          },
        ),
      );
      return;
    }
    documents.push({
      index,
      value,
      lineOf(path) {
        const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
        const offset = node?.range?.[0];
        return offset === undefined ? undefined : lineCounter.linePos(offset).line;
      },
    });
  });
  return { documents, problems };
}

/** What a document holds instead of an object with a kind, or null when it is one. */
function notAManifest(value: unknown): string | null {
  if (Array.isArray(value)) return `a list of ${value.length} item(s)`;
  if (typeof value !== "object" || value === null) {
    const text = String(value);
    if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)) return `${text.length} characters of binary data, not text`;
    return `a ${typeof value} (${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)})`;
  }
  const kind = (value as Record<string, unknown>).kind;
  if (typeof kind !== "string" || kind === "") {
    const keys = Object.keys(value).slice(0, 4);
    return `a mapping without kind${keys.length ? ` (keys ${keys.join(", ")}${Object.keys(value).length > 4 ? ", …" : ""})` : ""}`;
  }
  return null;
}
