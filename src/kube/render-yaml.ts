/** The one way kube-rdma writes a deploy/ file: a comment header, then each object as a `---` YAML document. */
import { stringify } from "yaml";

export function renderYamlDocuments(header: string, objects: readonly unknown[]): string {
  return header + objects.map((o) => `---\n${stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })}`).join("");
}
