import { Document } from "yaml";
import { escapeLine } from "../../core/device-name.js";

/**
 * Multi-document YAML ready for `kubectl apply -f -`. Built as data and written by the yaml library, header comment
 * included: each header line is one comment line (newlines, CR, escapes and line separators shown as `\n`, `\x1b`),
 * so no text in it (a value derived from a host) can end the comment and start a document of its own.
 */
export function renderManifests(objects: readonly unknown[], header: string[] = []): string {
  if (objects.length === 0) return header.map((h) => `# ${escapeLine(h)}\n`).join("");
  return objects
    .map((o, i) => {
      const doc = new Document(o);
      if (i === 0 && header.length > 0) doc.commentBefore = header.map((h) => ` ${escapeLine(h)}`).join("\n");
      return doc.toString({ lineWidth: 0 });
    })
    .join("---\n");
}
