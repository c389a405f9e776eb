import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { listExamples } from "../src/examples/index.js";
import { materializedExample } from "./support/examples.js";
import { captureIo } from "./support/io.js";

async function gids(...args: string[]) {
  const io = captureIo();
  const code = await main(["gids", ...args], io);
  return { code, out: io.out, err: io.err };
}

function oracle(dir: string, ...devices: string[]): string {
  const r = spawnSync("bash", ["test/oracle/show_gids.sh", dir, ...devices], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return r.stdout;
}

describe("gids on the seed host prints the seed's show_gids table", () => {
  test("the 36 rows of the seed's table, column for column, and the n_gids_found footer", async () => {
    const { code, out } = await gids("--example", "a100-8x-roce");
    expect(code).toBe(0);
    // The seed document collapsed show_gids' tabs into single spaces; compare whitespace-separated columns.
    const seedRows = readFileSync("test/fixtures/a100-roce-show-gids.txt", "utf8")
      .trim()
      .split("\n")
      .slice(2)
      .map((l) => l.trim().split(/\s+/));
    const lines = out.trimEnd().split("\n");
    const ours = lines.slice(2, -1).map((l) => l.trim().split(/\s+/));
    expect(seedRows).toHaveLength(36);
    expect(ours).toEqual(seedRows);
    expect(lines.at(-1)).toBe("n_gids_found=36");
  });

  test("the header lines carry show_gids' exact tabs", async () => {
    const { out } = await gids("--example", "a100-8x-roce");
    expect(out.split("\n").slice(0, 2)).toEqual([
      "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
      "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
    ]);
  });

  test("naming devices filters like `show_gids mlx5_1 mlx5_2`", async () => {
    const { out } = await gids("mlx5_2", "mlx5_1", "--example", "a100-8x-roce");
    const devices = new Set(
      out
        .split("\n")
        .slice(2, -2)
        .map((l) => l.split("\t")[0]),
    );
    expect([...devices]).toEqual(["mlx5_1", "mlx5_2"]);
    expect(out).toMatch(/n_gids_found=8\n$/);
  });

  test("a device that does not exist is a usage error listing the devices there", async () => {
    const { code, err } = await gids("mlx5_9", "--example", "a100-8x-roce");
    expect(code).toBe(2);
    expect(err).toMatch(/no RDMA device mlx5_9/);
    expect(err).toMatch(/mlx5_0 mlx5_1/);
  });
});

describe("gids -o json", () => {
  test("an array of {device, port, index, gid, ipv4, version, netdev} in natural device order", async () => {
    const { out } = await gids("--example", "h100-18hca", "-o", "json");
    const rows = JSON.parse(out) as { device: string; index: number; ipv4: string | null; version: string }[];
    const devices = [...new Set(rows.map((r) => r.device))];
    expect(devices.indexOf("mlx5_2")).toBeLessThan(devices.indexOf("mlx5_10"));
    expect(Object.keys(rows[0]!)).toEqual(["device", "port", "index", "gid", "ipv4", "version", "netdev"]);
  });

  test("the HCA whose IPv4 RoCE v2 GID moved shows it at index 5", async () => {
    const { out } = await gids("mlx5_5", "--example", "gid-index-5", "-o", "json");
    const rows = JSON.parse(out) as { index: number; ipv4: string | null; version: string }[];
    expect(rows.find((r) => r.ipv4 === "25.11.128.130" && r.version === "v2")?.index).toBe(5);
  });

  test("InfiniBand GIDs have no netdev", async () => {
    const { out } = await gids("--example", "ib-8x-hdr", "-o", "json");
    const rows = JSON.parse(out) as { netdev: string | null }[];
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.netdev === null)).toBe(true);
  });
});

describe("a host where gids finds nothing to show", () => {
  test("a root without any RDMA device → an empty table, why on stderr, exit 1 (show_gids would exit 0)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kr-gids-empty-"));
    mkdirSync(join(dir, "sys/class/infiniband"), { recursive: true });
    for (const output of ["text", "json"]) {
      const { code, out, err } = await gids("--root", dir, "-o", output);
      expect(code).toBe(1);
      expect(err).toMatch(/has no RDMA devices \(\/sys\/class\/infiniband is empty or missing\)\. Is mlx5_ib loaded\?/);
      if (output === "json") expect(JSON.parse(out)).toEqual([]);
      else expect(out).toMatch(/n_gids_found=0/);
    }
  });
});

describe("gids --root equals the show_gids algorithm, row for row, on every example tree", () => {
  test.each(listExamples().map((e) => e.name))(
    "%s",
    async (name) => {
      const tree = materializedExample(name);
      try {
        const { code, out } = await gids("--root", tree.dir);
        expect(code).toBe(0);
        expect(out).toBe(oracle(tree.dir));
        if (name === "sparse-gids") {
          const filtered = await gids("mlx5_3", "--root", tree.dir);
          expect(filtered.out).toBe(oracle(tree.dir, "mlx5_3"));
        }
      } finally {
        tree.cleanup();
      }
    },
    60_000,
  );
});
