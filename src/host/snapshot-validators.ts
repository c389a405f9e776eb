/**
 * The compiled checks of the snapshot schemas (src/host/snapshot-schema.ts holds the schemas themselves, the one
 * source of truth). Run from source (tsx, vitest) they are compiled by ajv on first use; the built CLI never loads
 * this module: `npm run build` compiles the same schemas with the same options ahead of time (ajv's standalone code,
 * see `standaloneValidators` below) and bundles that code in its place, so no command pays for loading ajv.
 */
import { createRequire } from "node:module";
import type { Ajv as AjvClass, KeywordCxt, ValidateFunction } from "ajv";
import { COMMANDS_SCHEMA, SNAPSHOT_SCHEMA } from "./snapshot-schema-defs.js";

export type SchemaName = "snapshot" | "commands";

const SCHEMAS: Record<SchemaName, object> = { snapshot: SNAPSHOT_SCHEMA, commands: COMMANDS_SCHEMA };

/** ajv with this project's options and its size cap; `standalone` also keeps the generated source of each check. */
export function schemaAjv(standalone = false): AjvClass {
  const { _, Ajv, str } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
  // The schemas are constants: checking them against the draft-07 meta-schema at every start would cost more than
  // compiling them (a test does it once: the meta-schema check beside the schema's tests).
  const ajv = new Ajv({
    allErrors: false,
    strict: true,
    validateSchema: false,
    ...(standalone ? { code: { source: true, esm: true } } : {}),
  });
  // A cap counts UTF-16 units (String.length), not code points: ajv's own maxLength walks every string of every
  // snapshot to count code points, a fifth of a fleet node's validation time; as a size cap the two agree enough.
  ajv.removeKeyword("maxLength");
  ajv.addKeyword({
    keyword: "maxLength",
    type: "string",
    schemaType: "number",
    code(cxt: KeywordCxt) {
      cxt.fail(_`${cxt.data}.length > ${cxt.schema}`);
    },
    error: { message: ({ schema }) => str`must NOT have more than ${schema} characters` },
  });
  return ajv;
}

let runtime: AjvClass | undefined;
const compiled: Partial<Record<SchemaName, ValidateFunction>> = {};

/**
 * Each schema compiled when first needed: a `--root` tree's captures need only the small commands schema, and
 * compiling the whole snapshot schema too would cost more than all the tree's file reads.
 */
export function validator(which: SchemaName): ValidateFunction {
  runtime ??= schemaAjv();
  const done = compiled[which] ?? runtime.compile(SCHEMAS[which]);
  compiled[which] = done;
  return done;
}

/**
 * The ES module the build bundles instead of this one: ajv's standalone code for both schemas, exporting the same
 * `validator(which)`.
 */
export function standaloneValidators(): string {
  const ajv = schemaAjv(true);
  for (const [name, schema] of Object.entries(SCHEMAS)) ajv.addSchema(schema, name);
  const standaloneCode = (
    createRequire(import.meta.url)("ajv/dist/standalone/index.js") as {
      default: (ajv: AjvClass, refs: Record<string, string>) => string;
    }
  ).default;
  const code = standaloneCode(ajv, { snapshot: "snapshot", commands: "commands" });
  return `${code}\nconst VALIDATORS = { snapshot, commands };\nexport function validator(which) {\n  return VALIDATORS[which];\n}\n`;
}
