import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { inventoryFor, twoNumaHcas } from "../../test/support/rdma-node.js";
import { compilePattern, DEFAULT_SELECTION, parseSelectionConfig, selectHcas } from "./config.js";

const seedLike = inventoryFor(twoNumaHcas());
const names = (text: string) => {
  const r = parseSelectionConfig(text, "hcas.yaml");
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return selectHcas(seedLike, r.value).selected.map((h) => h.name);
};

describe("selecting HCAs with the config file", () => {
  test("no config: the node model's data HCAs, management mlx5_0 left out with its reason", () => {
    const sel = selectHcas(seedLike, DEFAULT_SELECTION);
    expect(sel.selected.map((h) => h.name)).toEqual(
      twoNumaHcas()
        .slice(1)
        .map((h) => h.name),
    );
    expect(sel.skipped).toEqual([{ hca: "mlx5_0", reason: "management HCA (carries the default route via eth0)" }]);
  });

  test("a glob and a regular expression select by name; the management HCA still needs includeManagement", () => {
    expect(names("names: ['mlx5_[5-9]']")).toEqual(["mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
    expect(names("names: ['mlx5_[!1-7]']")).toEqual(["mlx5_8"]);
    expect(names("names: ['mlx5_?']")).toEqual([
      "mlx5_1",
      "mlx5_2",
      "mlx5_3",
      "mlx5_4",
      "mlx5_5",
      "mlx5_6",
      "mlx5_7",
      "mlx5_8",
    ]);
    expect(names("names: ['/^mlx5_[0-2]$/']")).toEqual(["mlx5_1", "mlx5_2"]);
    expect(names("names: ['/^mlx5_[0-2]$/']\nincludeManagement: true")).toEqual(["mlx5_0", "mlx5_1", "mlx5_2"]);
  });

  test("selectors AND together: netdev eth5..8 and vendor 15b3 (with or without 0x)", () => {
    expect(names("netdevs: ['eth[5-8]', '/^eth[5-8]$/']\nvendors: ['0x15B3']")).toEqual([
      "mlx5_5",
      "mlx5_6",
      "mlx5_7",
      "mlx5_8",
    ]);
    expect(names("linkLayers: [InfiniBand]")).toEqual([]);
    expect(names("deviceIds: ['101b']\nexcludeNames: ['mlx5_8']")).toHaveLength(7);
  });

  test("a file the YAML parser stops in (an unclosed [, a key written twice) is refused at its line, not read as half a selection", () => {
    const unclosed = parseSelectionConfig("names: [mlx5_1\nincludeManagement: true\n", "hcas.yaml");
    expect(unclosed.ok).toBe(false);
    expect(unclosed.problems[0]!.code).toBe("config.yaml");
    expect(unclosed.problems[0]!.message).toMatch(/^hcas\.yaml:\d+:\d+ is not valid YAML: /);
    const twice = parseSelectionConfig("names: [mlx5_1]\nnames: [mlx5_2]\n", "hcas.yaml");
    expect(twice.ok).toBe(false);
    expect(twice.problems[0]!.message).toBe("hcas.yaml:2:1 is not valid YAML: Map keys must be unique");
  });

  test("PCI ids written unquoted as 0x15b3 / 0x101b (YAML numbers) are read as the hex the user wrote, not 5555", () => {
    expect(names("vendors: [0x15b3]\ndeviceIds: [0x101b]")).toHaveLength(8);
    expect(names("deviceIds: [1017]")).toEqual([]);
  });

  test("an unknown key is an error naming the key and every allowed key", () => {
    const r = parseSelectionConfig("names: [mlx5_*]\nlinkType: ether\n", "/etc/kube-rdma/hcas.yaml");
    expect(r.ok).toBe(false);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.code).toBe("config.unknown_key");
    expect(r.problems[0]!.message).toBe(
      '/etc/kube-rdma/hcas.yaml: unknown key "linkType"; allowed keys: names, excludeNames, linkLayers, vendors, deviceIds, netdevs, includeManagement',
    );
  });

  test("every problem is reported at once: a bad regex, a bad link layer, a wrong type", () => {
    const r = parseSelectionConfig("names: ['/mlx5_(/']\nlinkLayers: [token-ring]\nvendors: {a: 1}\n");
    expect(r.problems.map((p) => p.code)).toEqual(["config.pattern", "config.value", "config.type"]);
  });

  test("an empty file selects like no file; a list at the top is refused", () => {
    expect(parseSelectionConfig("").ok).toBe(true);
    const list = parseSelectionConfig("- mlx5_1\n", "hcas.yaml");
    expect(list.ok).toBe(false);
    // It says what it found: a list, not JavaScript's "object".
    expect(list.problems[0]?.message).toMatch(/hcas\.yaml must be a YAML mapping of selectors .*; found a list$/);
  });

  test("a glob with a bad character class is a problem, not a crash", () => {
    expect(parseSelectionConfig("names: ['mlx5_[z-a]']").problems[0]?.code).toBe("config.pattern");
  });

  test("globs escape regex characters", () => {
    const re = compilePattern("mlx5.bond_*");
    expect(re instanceof RegExp && re.test("mlx5xbond_0")).toBe(false);
  });

  test("random and mutated text never throws: a selection or problems", () => {
    const valid = "names: [mlx5_*]\nnetdevs: [eth1]\nincludeManagement: false\n";
    const mutated = fc
      .tuple(fc.nat(valid.length), fc.nat(valid.length), fc.string())
      .map(([a, b, s]) => valid.slice(0, Math.min(a, b)) + s + valid.slice(Math.max(a, b)));
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutated), (text) => {
        const r = parseSelectionConfig(text);
        expect(r.ok || r.problems.length > 0).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
