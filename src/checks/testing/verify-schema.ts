/** The `verify -o json` contract of design.md, as a JSON Schema for tests (extra fields allowed). */
export const VERIFY_REPORT_SCHEMA = {
  type: "object",
  required: ["schemaVersion", "host", "inventory", "findings", "summary"],
  properties: {
    schemaVersion: { const: 1 },
    host: { type: "string", minLength: 1 },
    inventory: { type: "object", required: ["hostname", "hcas", "gpus", "netdevs", "roles"] },
    findings: {
      type: "array",
      items: {
        type: "object",
        required: ["code", "severity", "subject", "message", "fix"],
        properties: {
          code: { type: "string", pattern: "^[A-Z][A-Z0-9_]*$" },
          severity: { enum: ["error", "warning", "info"] },
          subject: { type: "string", minLength: 1 },
          message: { type: "string", minLength: 1 },
          fix: { type: "string", minLength: 1 },
          evidence: { type: "object" },
        },
      },
    },
    summary: {
      type: "object",
      required: ["status", "errors", "warnings"],
      properties: {
        status: { enum: ["pass", "warn", "fail"] },
        errors: { type: "integer", minimum: 0 },
        warnings: { type: "integer", minimum: 0 },
      },
    },
  },
} as const;
