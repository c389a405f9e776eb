import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures");

/** Reads `fixtures/<area>/<name>` as text. */
export function fixtureText(area: string, name: string): string {
  return readFileSync(join(root, area, name), "utf8");
}

export function fixturePath(area: string, name: string): string {
  return join(root, area, name);
}
