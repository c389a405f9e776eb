import { stringify } from "yaml";

/** Multi-document YAML ready for `kubectl apply -f -`. */
export function renderManifests(objects: readonly unknown[], header: string[] = []): string {
  const comments = header.map((h) => `# ${h}\n`).join("");
  return comments + objects.map((o) => stringify(o, { lineWidth: 0 })).join("---\n");
}
