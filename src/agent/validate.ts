/**
 * The published schema of a node report (docs/node-report.schema.json is this object; a test fails on drift) and
 * the one reader of reports: the agent reading its own last report, and `fleet verify` reading every node's.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { type NodeReport, REPORT_KIND, REPORT_SCHEMA_VERSION } from "./report.js";

const finding = {
  type: "object",
  required: ["code", "severity", "subject", "message", "fix"],
  properties: {
    code: { type: "string", pattern: "^[A-Z][A-Z0-9_]*$", maxLength: 80 },
    severity: { enum: ["error", "warning", "info"] },
    subject: { type: "string", maxLength: 1024 },
    message: { type: "string", maxLength: 8192 },
    fix: { type: "string", maxLength: 8192 },
    evidence: { type: "object" },
    confidence: { type: "object" },
  },
};

export const NODE_REPORT_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://kube-rdma.io/schemas/node-report.schema.json",
  title: "kube-rdma node report (the agent's ConfigMap kube-rdma-node-NODE, key report.json)",
  type: "object",
  required: [
    "schemaVersion",
    "kind",
    "node",
    "generatedAt",
    "agentVersion",
    "ready",
    "summary",
    "findings",
    "values",
    "rails",
  ],
  properties: {
    schemaVersion: { const: REPORT_SCHEMA_VERSION },
    kind: { const: REPORT_KIND },
    node: { type: "string", minLength: 1, maxLength: 253 },
    generatedAt: { type: "string", maxLength: 40 },
    agentVersion: { type: "string", maxLength: 64 },
    ready: { enum: ["True", "False", "Unknown"] },
    summary: {
      type: "object",
      required: ["status", "errors", "warnings", "infos"],
      properties: {
        status: { enum: ["pass", "warn", "fail"] },
        errors: { type: "integer", minimum: 0 },
        warnings: { type: "integer", minimum: 0 },
        infos: { type: "integer", minimum: 0 },
      },
    },
    findings: { type: "array", maxItems: 200, items: finding },
    findingsOmitted: { type: "integer", minimum: 0 },
    values: { type: "object", maxProperties: 64, additionalProperties: { type: "string", maxLength: 4096 } },
    rails: {
      type: "array",
      maxItems: 256,
      items: {
        type: "object",
        required: ["hca", "netdev", "subnet"],
        properties: {
          hca: { type: "string", maxLength: 64 },
          netdev: { type: ["string", "null"], maxLength: 64 },
          subnet: { type: ["string", "null"], maxLength: 64 },
        },
      },
    },
    error: { type: "string", maxLength: 4096 },
  },
} as const;

let validator: ValidateFunction | undefined;

export type ParsedReport = { ok: true; report: NodeReport } | { ok: false; reason: string };

/** A report's JSON text → the report, or what is wrong with it (the JSON path of the first violation). */
export function parseReport(text: string): ParsedReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "its report.json is not JSON" };
  }
  validator ??= new Ajv({ allErrors: false, strict: false }).compile(NODE_REPORT_SCHEMA);
  if (!validator(value)) {
    const e = validator.errors?.[0];
    return {
      ok: false,
      reason: `its report.json is not a node report: ${e?.instancePath || "$"} ${e?.message ?? ""}`.trim(),
    };
  }
  return { ok: true, report: value as NodeReport };
}
