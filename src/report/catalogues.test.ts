/** One fact, one code, one fix: no two catalogues write the same code (a node, a pod, a manifest, a cluster). */
import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { ANALYZE_CATALOGUE } from "../analyze/catalogue.js";
import { CATALOGUE as VERIFY_CATALOGUE } from "../checks/catalogue.js";
import { main } from "../cli/main.js";
import { FLEET_BENCH_FINDINGS } from "../fabric/bench/catalogue.js";
import { CLUSTER_FINDINGS } from "../kube/cluster/catalogue.js";
import { FLEET_FINDINGS } from "../kube/fleet/catalogue.js";
import { LINT_FINDINGS } from "../kube/lint/catalogue.js";
import { NCCL_ENV_FINDINGS } from "../nccl/catalogue.js";
import { NCCL_LOG_FINDINGS } from "../nccl/log/catalogue.js";
import { PAIR_FINDINGS } from "../nccl/pairs/catalogue.js";
import { NCCL_TESTS_FINDINGS } from "../nccl/perf-results/catalogue.js";
import { PREFLIGHT_FINDINGS } from "../preflight/catalogue.js";
import { textWidth } from "./findings-text.js";

const CATALOGUES: Record<string, object> = {
  verify: VERIFY_CATALOGUE,
  analyze: ANALYZE_CATALOGUE,
  "nccl-env": NCCL_ENV_FINDINGS,
  "NCCL logs": NCCL_LOG_FINDINGS,
  "bench pairs": PAIR_FINDINGS,
  "nccl-tests": NCCL_TESTS_FINDINGS,
  fleet: FLEET_FINDINGS,
  "fleet bench": FLEET_BENCH_FINDINGS,
  lint: LINT_FINDINGS,
  cluster: CLUSTER_FINDINGS,
  preflight: PREFLIGHT_FINDINGS,
};

describe("one catalogue entry per code", () => {
  test("no code is written in two catalogues (analyze uses verify's words for PORT_DOWN, lint verify's for NO_IPC_LOCK, …)", () => {
    const owners = new Map<string, string[]>();
    for (const [name, cat] of Object.entries(CATALOGUES)) {
      for (const code of Object.keys(cat)) owners.set(code, [...(owners.get(code) ?? []), name]);
    }
    const twice = [...owners].filter(([, o]) => o.length > 1).map(([code, o]) => `${code}: ${o.join(", ")}`);
    expect(twice).toEqual([]);
  });
});

describe("text reports read the same everywhere", () => {
  const lastLine = (t: string) => t.trimEnd().split("\n").at(-1)!;
  test("verify, analyze and lint end with the same summary wording", async () => {
    const verify = captureIo();
    await main(["verify", "--example", "port-down"], verify);
    const analyze = captureIo();
    await main(["analyze", "fixtures/captures/show_gids/a100-roce-gid-index-5.txt"], analyze);
    const lint = captureIo("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    await main(["lint", "-"], lint);
    for (const out of [verify.out, analyze.out, lint.out]) {
      expect(lastLine(out)).toMatch(/^(PASS|WARN|FAIL): \d+ error\(s\), \d+ warning\(s\), \d+ info; /);
    }
  });

  test("text wraps at 80 columns when not a terminal, at the terminal's width when it is one", async () => {
    expect(textWidth({ isTTY: false, columns: 200 })).toBe(80);
    expect(textWidth({ isTTY: true, columns: 132 })).toBe(132);
    for (const argv of [
      ["verify", "--example", "sparse-gids"],
      ["analyze", "fixtures/captures/show_gids/a100-roce-sparse-gids.txt"],
    ]) {
      const pipe = captureIo();
      await main(argv, pipe);
      const longest = Math.max(...pipe.out.split("\n").map((l) => [...l].length));
      expect(longest).toBeLessThanOrEqual(80);
      const wide = Object.assign(captureIo(), { isTTY: true, columns: 160 });
      await main(argv, wide);
      expect(Math.max(...wide.out.split("\n").map((l) => [...l].length))).toBeGreaterThan(80);
    }
  });

  test("identical findings on 8 HCAs print once with the 8 names (verify --example sparse-gids)", async () => {
    const io = captureIo();
    await main(["verify", "--example", "sparse-gids"], io);
    expect(io.out.match(/GID_TABLE_SPARSE/g)).toHaveLength(1);
    expect(io.out).toContain("mlx5_1..mlx5_8");
    expect(io.out).toContain("Warnings (8)");
    const json = captureIo();
    await main(["verify", "--example", "sparse-gids", "-o", "json"], json);
    expect(JSON.parse(json.out).findings.filter((f: { code: string }) => f.code === "GID_TABLE_SPARSE")).toHaveLength(
      8,
    );
  });
});

describe("one fact seen from two angles has one fix", () => {
  const findingOf = (out: string, code: string) =>
    (JSON.parse(out).findings as { code: string; message: string; fix: string }[]).find((f) => f.code === code)!;

  test.each(["NO_IPC_LOCK", "SHM_SMALL"])(
    "%s: a manifest (lint) and the running pod (verify --pod) get the same fix, each message says where it was seen",
    async (code) => {
      const manifest = code === "NO_IPC_LOCK" ? "no-ipc-lock" : "shm-small";
      const lint = captureIo();
      await main(["lint", "-o", "json", `fixtures/manifests/bad/${manifest}.yaml`], lint);
      const pod = captureIo();
      await main(["verify", "--example", "pod-restricted", "--pod", "-o", "json"], pod);
      const fromManifest = findingOf(lint.out, code);
      const fromPod = findingOf(pod.out, code);
      expect(fromManifest.fix).toBe(fromPod.fix);
      expect(fromManifest.message).toMatch(/container pytorch/);
      expect(fromPod.message).toMatch(/^(CapEff|\/dev\/shm is)/);
    },
  );
});
