import { describe, expect, test } from "vitest";
import { analyzeText } from "../analyze/index.js";
import { parseShowGids } from "./show-gids.js";

const table = (rows: string[]) =>
  [
    "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
    "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
    ...rows,
    `n_gids_found=${rows.length}`,
  ].join("\n");
const row = (dev: string, index: string) =>
  `${dev}\t1\t${index}\t0000:0000:0000:0000:0000:ffff:190b:8002\t25.11.128.2  \tv2\teth1`;

describe("show_gids pastes an attacker wrote", () => {
  // ports are u8 (ibv_query_port(3)); GID tables hold a few hundred slots at most.
  test.each(["4294967296", "10000000", "4096"])(
    "an index of %s is a problem row, not a crash or a huge allocation",
    (index) => {
      const before = process.memoryUsage().rss;
      const r = parseShowGids(table([row("mlx5_1", "3"), row("mlx5_1", index)]));
      expect(r.problems.map((p) => p.code)).toContain("show_gids.bad_row");
      const entry = analyzeText("gids.txt", table([row("mlx5_1", "3"), row("mlx5_1", index)]));
      expect(entry.kind).toBe("show_gids");
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
    },
  );
  test.each(["mlx5_$(reboot)", 'mlx5_"1', "mlx5_<1", "mlx5_'1", "mlx5_\u00071"])(
    "a device named %j is a problem entry, never dropped in silence",
    (dev) => {
      const r = parseShowGids(table([row("mlx5_1", "3"), row(dev, "3")]));
      expect(r.problems.map((p) => p.code)).toContain("show_gids.bad_row");
      expect(r.problems.map((p) => p.message).join("\n")).not.toMatch(/\u001b/);
    },
  );
});
