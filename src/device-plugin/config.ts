/**
 * Which HCAs the plugin hands out: a small YAML file (`--config`), parsed purely. Selectors are ANDed; the values
 * inside one selector are ORed (the same convention as the Mellanox plugin's selectors, tech-spec §6.4).
 *
 * ```yaml
 * names: ["mlx5_*", "/^mlx5_(1[0-7]|[1-9])$/"]   # glob, or a regular expression between slashes
 * excludeNames: [mlx5_bond_*]
 * linkLayers: [Ethernet]                          # Ethernet (RoCE) or InfiniBand
 * vendors: ["15b3"]                               # PCI vendor id (0x optional)
 * deviceIds: ["101b"]                             # PCI device id
 * netdevs: ["eth*"]                               # any netdev of the HCA matches
 * includeManagement: false                        # the management HCA is left out unless true
 * ```
 */
import { parseDocument, visit } from "yaml";
import { type ParseResult, type Problem, problem } from "../core/result.js";
import type { Hca, NodeInventory } from "../inventory/types.js";

export type Selection = {
  names: RegExp[];
  excludeNames: RegExp[];
  linkLayers: ("InfiniBand" | "Ethernet")[];
  vendors: string[];
  deviceIds: string[];
  netdevs: RegExp[];
  includeManagement: boolean;
  /** True when any selector was given; otherwise the node model's data HCAs are taken as they are. */
  explicit: boolean;
};

export const CONFIG_KEYS = [
  "names",
  "excludeNames",
  "linkLayers",
  "vendors",
  "deviceIds",
  "netdevs",
  "includeManagement",
] as const;

export const DEFAULT_SELECTION: Selection = {
  names: [],
  excludeNames: [],
  linkLayers: [],
  vendors: [],
  deviceIds: [],
  netdevs: [],
  includeManagement: false,
  explicit: false,
};

/** Globs (`*`, `?`, `[0-9]`, `[!0]`) → anchored RegExp; `/re/` → /re/. Returns a problem message for a bad regular expression. */
export function compilePattern(pattern: string): RegExp | string {
  if (pattern.length > 2 && pattern.startsWith("/") && pattern.endsWith("/")) {
    try {
      return new RegExp(pattern.slice(1, -1));
    } catch (err) {
      return `"${pattern}" is not a valid regular expression (${err instanceof Error ? err.message : String(err)})`;
    }
  }
  let body = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const close = c === "[" ? pattern.indexOf("]", i + 2) : -1;
    if (close > 0) {
      // A glob character class: [0-9], [!0] (negated) — copied with regex-special characters escaped.
      const inner = pattern
        .slice(i + 1, close)
        .replace(/^!/, "^")
        .replace(/[\\\]]/g, "\\$&");
      body += `[${inner}]`;
      i = close;
    } else body += c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  try {
    return new RegExp(`^${body}$`);
  } catch {
    return `"${pattern}" is not a valid glob (a character class like [z-a] is out of order)`;
  }
}

function normaliseHex(id: string): string {
  return id.trim().toLowerCase().replace(/^0x/, "");
}

/** Parses the YAML config. Every problem is collected; `source` names the file in messages. */
export function parseSelectionConfig(text: string, source = "config"): ParseResult<Selection> {
  // Every YAML error is a problem: an unclosed [ or a key given twice must not leave a selection the user never
  // wrote (the YAML library's silent mode dropped them, and the last `names:` won).
  const parsed = parseDocument(text);
  const error = parsed.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    const msg = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    return {
      ok: false,
      problems: [
        problem("config.yaml", `${source}${pos ? `:${pos.line}:${pos.col}` : ""} is not valid YAML: ${msg}`, {
          path: source,
          ...(pos ? { line: pos.line } : {}),
          hint: "Fix the YAML at that line (a list is [a, b] or one `- item` per line; each key once).",
        }),
      ],
    };
  }
  // A number keeps the digits it was written with: PCI ids are hex, and YAML reads an unquoted 0x15b3 as 5555.
  visit(parsed, {
    Scalar(_key, node) {
      if (typeof node.value === "number" && typeof node.source === "string") node.value = node.source;
    },
  });
  let doc: unknown;
  try {
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // An alias without its anchor (`*x`) or an alias bomb surfaces only when converting.
    const msg = err instanceof Error ? err.message : String(err);
    return { ok: false, problems: [problem("config.yaml", `${source} is not valid YAML: ${msg}`, { path: source })] };
  }
  if (doc === null || doc === undefined) return { ok: true, value: DEFAULT_SELECTION, problems: [] };
  if (typeof doc !== "object" || Array.isArray(doc)) {
    return {
      ok: false,
      problems: [
        problem(
          "config.shape",
          `${source} must be a YAML mapping of selectors (names, excludeNames, linkLayers, …); found ${Array.isArray(doc) ? "a list" : `a ${typeof doc}`}`,
        ),
      ],
    };
  }
  const problems: Problem[] = [];
  const sel: Selection = { ...DEFAULT_SELECTION, explicit: false };
  const allowed = CONFIG_KEYS.join(", ");
  const list = (key: string, value: unknown): string[] | null => {
    const items = typeof value === "string" ? [value] : value;
    if (Array.isArray(items) && items.every((v) => typeof v === "string" || typeof v === "number")) {
      return items.map(String);
    }
    problems.push(
      problem("config.type", `${source}: "${key}" must be a list of strings; found ${JSON.stringify(value)}`, {
        path: source,
      }),
    );
    return null;
  };
  const patterns = (key: string, value: unknown): RegExp[] => {
    const out: RegExp[] = [];
    for (const p of list(key, value) ?? []) {
      const re = compilePattern(p);
      if (typeof re === "string")
        problems.push(problem("config.pattern", `${source}: ${key}: ${re}`, { path: source }));
      else out.push(re);
    }
    return out;
  };
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    switch (key) {
      case "names":
        sel.names = patterns(key, value);
        break;
      case "excludeNames":
        sel.excludeNames = patterns(key, value);
        break;
      case "netdevs":
        sel.netdevs = patterns(key, value);
        break;
      case "linkLayers":
        sel.linkLayers = (list(key, value) ?? []).flatMap((l) => {
          const v = l.toLowerCase();
          if (v === "ethernet" || v === "roce") return ["Ethernet" as const];
          if (v === "infiniband" || v === "ib") return ["InfiniBand" as const];
          problems.push(
            problem("config.value", `${source}: linkLayers: "${l}" is not Ethernet or InfiniBand`, { path: source }),
          );
          return [];
        });
        break;
      case "vendors":
        sel.vendors = (list(key, value) ?? []).map(normaliseHex);
        break;
      case "deviceIds":
        sel.deviceIds = (list(key, value) ?? []).map(normaliseHex);
        break;
      case "includeManagement":
        if (typeof value === "boolean") sel.includeManagement = value;
        else problems.push(problem("config.type", `${source}: includeManagement must be true or false`));
        break;
      default:
        problems.push(
          problem("config.unknown_key", `${source}: unknown key "${key}"; allowed keys: ${allowed}`, {
            path: source,
            hint: "Check the spelling (keys are camelCase) or run `kube-rdma device-plugin --help`.",
          }),
        );
    }
  }
  sel.explicit =
    sel.names.length + sel.linkLayers.length + sel.vendors.length + sel.deviceIds.length + sel.netdevs.length > 0;
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: sel, problems: [] };
}

export type HcaSelection = { selected: Hca[]; skipped: { hca: string; reason: string }[] };

function matchesAny(res: readonly RegExp[], value: string): boolean {
  return res.some((re) => re.test(value));
}

function rejection(hca: Hca, sel: Selection): string | null {
  if (hca.role === "management" && !sel.includeManagement) return `management HCA (${hca.roleReason})`;
  if (matchesAny(sel.excludeNames, hca.name)) return "matches excludeNames";
  if (!sel.explicit) return hca.role === "data" || hca.role === "management" ? null : `role ${hca.role}`;
  if (sel.names.length && !matchesAny(sel.names, hca.name)) return "name does not match names";
  if (sel.linkLayers.length && !hca.ports.some((p) => (sel.linkLayers as string[]).includes(p.linkLayer))) {
    return "link layer not in linkLayers";
  }
  if (sel.vendors.length && !sel.vendors.includes(normaliseHex(hca.vendorId ?? ""))) return "vendor not in vendors";
  if (sel.deviceIds.length && !sel.deviceIds.includes(normaliseHex(hca.deviceId ?? ""))) {
    return "device id not in deviceIds";
  }
  if (sel.netdevs.length && !hca.netdevs.some((n) => matchesAny(sel.netdevs, n))) return "no netdev matches netdevs";
  return null;
}

/** The HCAs the plugin serves, in the node model's order, and why each other HCA was left out. */
export function selectHcas(inv: NodeInventory, sel: Selection): HcaSelection {
  const selected: Hca[] = [];
  const skipped: { hca: string; reason: string }[] = [];
  for (const hca of inv.hcas) {
    const why = rejection(hca, sel);
    if (why === null) selected.push(hca);
    else skipped.push({ hca: hca.name, reason: why });
  }
  return { selected, skipped };
}
