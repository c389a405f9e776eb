/**
 * Writes the generated files (`npm run schema`): the JSON Schemas of src/host/snapshot-schema.ts into docs/, and the
 * fleet namespace's admission policy into deploy/fleet/; snapshot-schema.test.ts fails when they are not current.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AGENT_MANIFEST_FILE, renderAgentManifests } from "../../src/agent/manifests.js";
import { NODE_REPORT_SCHEMA } from "../../src/agent/validate.js";
import { COMMANDS_SCHEMA, SNAPSHOT_SCHEMA } from "../../src/host/snapshot-schema.js";
import { ADMISSION_POLICY_FILE, renderAdmissionPolicy } from "../../src/kube/fleet/admission-policy.js";
import { PREFLIGHT_FACTS_SCHEMA } from "../../src/preflight/schema.js";

/** The docs/ files and their text. */
export function schemaDocs(): Record<string, string> {
  return {
    "docs/snapshot.schema.json": `${JSON.stringify(SNAPSHOT_SCHEMA, null, 2)}\n`,
    "docs/commands.schema.json": `${JSON.stringify(COMMANDS_SCHEMA, null, 2)}\n`,
    [ADMISSION_POLICY_FILE]: renderAdmissionPolicy(),
    "docs/node-report.schema.json": `${JSON.stringify(NODE_REPORT_SCHEMA, null, 2)}\n`,
    [AGENT_MANIFEST_FILE]: renderAgentManifests(),
    "docs/preflight-facts.schema.json": `${JSON.stringify(PREFLIGHT_FACTS_SCHEMA, null, 2)}\n`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, text] of Object.entries(schemaDocs())) {
    writeFileSync(new URL(`../../${path}`, import.meta.url), text);
    console.log(`wrote ${path}`);
  }
}
