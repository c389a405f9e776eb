/**
 * Writes the JSON Schemas of src/host/snapshot-schema.ts into docs/ (`npm run schema`); snapshot-schema.test.ts
 * fails when the files there are not what this writes.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COMMANDS_SCHEMA, SNAPSHOT_SCHEMA } from "../../src/host/snapshot-schema.js";

/** The docs/ files and their text. */
export function schemaDocs(): Record<string, string> {
  return {
    "docs/snapshot.schema.json": `${JSON.stringify(SNAPSHOT_SCHEMA, null, 2)}\n`,
    "docs/commands.schema.json": `${JSON.stringify(COMMANDS_SCHEMA, null, 2)}\n`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, text] of Object.entries(schemaDocs())) {
    writeFileSync(new URL(`../../${path}`, import.meta.url), text);
    console.log(`wrote ${path}`);
  }
}
