/**
 * The published schema of a pod's facts (`kube-rdma preflight --facts-only -o json`, what the gang publishes and
 * `preflight diff` reads): docs/preflight-facts.schema.json is this object (`npm run schema`; a test fails on drift).
 * Every fact a comparison reads is typed and bounded here, so a damaged or hand-edited file is refused with the
 * JSON path of each violation before anything judges it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { jsonPath, unescapePointer } from "../host/snapshot-schema.js";
import { MAX_HCAS } from "../inventory/limits.js";

/** A name, path or value of one fact. */
const MAX_TEXT = 4096;
/** Interfaces a pod may see (a host-network pod sees the node's, veths included). */
const MAX_NETDEVS = 65_536;
/** Libraries, device nodes, subnets, problems: far above any real pod. */
const MAX_LIST = 4096;

const text = { type: "string", maxLength: MAX_TEXT, description: "a string" } as const;
const textOrNull = { type: ["string", "null"], maxLength: MAX_TEXT, description: "a string or null" } as const;
const texts = { type: "array", maxItems: MAX_LIST, items: text, description: "a list of strings" } as const;
const indexOrNull = {
  type: ["integer", "null"],
  minimum: 0,
  maximum: 65_535,
  description: "a GID index (a whole number 0–65535) or null",
} as const;
/** memlock as /proc/self/limits says it: bytes, `unlimited`, or null when unreadable. */
const limit = {
  type: ["integer", "string", "null"],
  minimum: 0,
  pattern: "^unlimited$",
  description: 'a number of bytes, "unlimited" or null',
} as const;

const library = {
  type: "object",
  required: ["path", "version"],
  description: "a library: {path, version, versionFrom}",
  properties: {
    path: text,
    version: textOrNull,
    versionFrom: {
      enum: ["file name", "link target", "package", "library text", null],
      description: '"file name", "link target", "package", "library text" or null',
    },
  },
} as const;

const hca = {
  type: "object",
  required: [
    "name",
    "role",
    "linkLayer",
    "uverbs",
    "roceV2Ipv4Index",
    "roceV2Ipv6Index",
    "address",
    "netdev",
    "subnet",
  ],
  description: "an HCA: {name, role, linkLayer, uverbs, roceV2Ipv4Index, …}",
  properties: {
    name: text,
    role: { enum: ["management", "data", "excluded"], description: '"management", "data" or "excluded"' },
    linkLayer: text,
    uverbs: {
      type: "array",
      maxItems: MAX_LIST,
      description: "a list of {device, open}",
      items: {
        type: "object",
        required: ["device", "open"],
        description: "{device, open}",
        properties: { device: text, open: text },
      },
    },
    roceV2Ipv4Index: indexOrNull,
    roceV2Ipv6Index: indexOrNull,
    address: textOrNull,
    netdev: textOrNull,
    subnet: textOrNull,
  },
} as const;

const netdev = {
  type: "object",
  required: ["name", "operstate", "mtu", "ipv4Subnets"],
  description: "an interface: {name, operstate, mtu, ipv4Subnets}",
  properties: {
    name: text,
    operstate: textOrNull,
    mtu: { type: ["integer", "null"], minimum: 0, description: "a whole number of bytes or null" },
    ipv4Subnets: texts,
  },
} as const;

export const PREFLIGHT_FACTS_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://kube-rdma.io/schemas/preflight-facts.schema.json",
  title: "kube-rdma pod facts (kube-rdma preflight --facts-only -o json; read by preflight diff and the gang)",
  type: "object",
  description: "a JSON object",
  required: [
    "kind",
    "schemaVersion",
    "pod",
    "hostname",
    "source",
    "hcas",
    "dataHcas",
    "defaultRouteInterface",
    "netdevs",
    "memlock",
    "ipcLock",
    "shmBytes",
    "gpus",
    "gpuDirect",
    "nccl",
    "env",
    "problems",
  ],
  properties: {
    kind: { const: "kube-rdma/preflight-facts", description: '"kube-rdma/preflight-facts"' },
    schemaVersion: { const: 1, description: "1" },
    pod: text,
    hostname: text,
    source: text,
    hcas: { type: "array", maxItems: MAX_HCAS, items: hca, description: `a list of at most ${MAX_HCAS} HCAs` },
    dataHcas: { ...texts, maxItems: MAX_HCAS, description: `a list of at most ${MAX_HCAS} HCA names` },
    defaultRouteInterface: textOrNull,
    netdevs: {
      type: "array",
      maxItems: MAX_NETDEVS,
      items: netdev,
      description: `a list of at most ${MAX_NETDEVS} interfaces`,
    },
    memlock: {
      type: "object",
      required: ["soft", "hard"],
      description: "{soft, hard}",
      properties: { soft: limit, hard: limit },
    },
    ipcLock: { type: ["boolean", "null"], description: "true, false or null" },
    shmBytes: { type: ["integer", "null"], minimum: 0, description: "a whole number of bytes or null" },
    gpus: {
      type: "object",
      required: ["visibleDevices", "deviceNodes", "count"],
      description: "{visibleDevices, deviceNodes, count}",
      properties: {
        visibleDevices: textOrNull,
        deviceNodes: texts,
        count: { type: "integer", minimum: 0, maximum: MAX_LIST, description: "a whole number of GPUs" },
      },
    },
    gpuDirect: { enum: ["peermem", "dmabuf", null], description: '"peermem", "dmabuf" or null' },
    nccl: {
      type: "object",
      required: ["library", "libraries", "netPlugins"],
      description: "{library, libraries, netPlugins}",
      properties: {
        library: { anyOf: [library, { type: "null" }], description: "a library {path, version} or null" },
        libraries: { type: "array", maxItems: MAX_LIST, items: library, description: "a list of libraries" },
        netPlugins: { type: "array", maxItems: MAX_LIST, items: library, description: "a list of libraries" },
      },
    },
    env: {
      type: "object",
      maxProperties: MAX_LIST,
      propertyNames: { maxLength: 256 },
      additionalProperties: { type: "string", maxLength: 65_536, description: "a string" },
      description: "an object of NCCL_* variables (strings)",
    },
    problems: { type: "array", maxItems: 100_000, items: text, description: "a list of strings" },
  },
} as const;

/** At most this many violations are named: a file wrong everywhere is refused just as clearly. */
export const MAX_VIOLATIONS = 20;

/** A bad value: where (`$.memlock.soft`) and what was expected there. */
export type FactsViolation = { path: string; message: string };

let validator: ValidateFunction | undefined;

/** Every violation of the facts schema in `value` (the first MAX_VIOLATIONS); empty when it is pod facts. */
export function factsViolations(value: unknown): FactsViolation[] {
  validator ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true }).compile(
    PREFLIGHT_FACTS_SCHEMA,
  );
  if (validator(value)) return [];
  return violationsOf(validator.errors ?? []).slice(0, MAX_VIOLATIONS);
}

/** One violation per place: the errors inside an anyOf's branches are folded into the anyOf's own. */
function violationsOf(errors: readonly ErrorObject[]): FactsViolation[] {
  const folded = errors.filter((e) => e.keyword === "anyOf").map((e) => `${e.schemaPath}/`);
  const seen = new Set<string>();
  const out: FactsViolation[] = [];
  for (const e of errors) {
    if (folded.some((p) => e.schemaPath.startsWith(p))) continue;
    const v = violationOf(e);
    if (seen.has(v.path)) continue;
    seen.add(v.path);
    out.push(v);
  }
  return out;
}

function violationOf(e: ErrorObject): FactsViolation {
  const segments = e.instancePath === "" ? [] : e.instancePath.slice(1).split("/").map(unescapePointer);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "required") {
    segments.push(String(p.missingProperty));
    return { path: jsonPath(segments), message: "missing" };
  }
  if (e.keyword === "propertyNames") {
    segments.push(String(p.propertyName));
    return { path: jsonPath(segments), message: "the name is too long" };
  }
  if (e.keyword === "maxItems" || e.keyword === "maxProperties")
    return { path: jsonPath(segments), message: `more than ${String(p.limit)} entries` };
  if (e.keyword === "maxLength")
    return { path: jsonPath(segments), message: `longer than ${String(p.limit)} characters` };
  const expected = (e.parentSchema as { description?: string } | undefined)?.description;
  return {
    path: jsonPath(segments),
    message: `expected ${expected ?? e.message ?? e.keyword}, found ${found(e.data)}`,
  };
}

/** A short, safe rendering of the value found (a string is cut, quoted and escaped by JSON). */
function found(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
