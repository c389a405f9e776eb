/** Stories on the embedded example hosts (H1's node model): what nccl-env and the analysers say about each. */
import { describe, expect, test } from "vitest";
import { loadInventory } from "../src/cli/commands/nccl-env.js";
import { main } from "../src/cli/main.js";
import { analyzeNcclLog, analyzeNcclTests, deriveNcclEnv } from "../src/nccl/index.js";
import { fixtureText } from "./support/fixtures.js";
import { captureIo } from "./support/io.js";

const example = (name: string) => loadInventory({ example: name });

describe("nccl-env on the example hosts", () => {
  test("the seed (hostNetwork pods): 8 data HCAs exactly, eth0, GID index 3, each with its reason; the platform's tuning only with --profile reference", async () => {
    const io = captureIo();
    expect(await main(["nccl-env", "--example", "a100-8x-roce", "--network", "host"], io)).toBe(0);
    expect(io.out).toMatch(/^NCCL_IB_HCA==mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8$/m);
    expect(io.out).toMatch(/^NCCL_SOCKET_IFNAME==eth0$/m);
    expect(io.out).toMatch(/^NCCL_IB_GID_INDEX=3$/m);
    expect(io.out).not.toMatch(/^NCCL_IB_TIMEOUT=/m);
    const ref = captureIo();
    await main(["nccl-env", "--example", "a100-8x-roce", "--network", "host", "--profile", "reference"], ref);
    expect(ref.out).toMatch(/^NCCL_IB_TIMEOUT=22$/m);
    expect(ref.out).toMatch(/^NCCL_IB_QPS_PER_CONNECTION=8$/m);
    const lines = io.out.split("\n");
    for (const v of lines.filter((l) => /^NCCL_/.test(l))) {
      expect(lines[lines.indexOf(v) - 1]).toMatch(/^# \S/);
    }
  });

  test("gid-index-5: address family and range, and the reason names mlx5_5", async () => {
    const r = deriveNcclEnv(await example("gid-index-5"));
    expect(r.env).not.toHaveProperty("NCCL_IB_GID_INDEX");
    expect(r.env.NCCL_IB_ADDR_FAMILY).toBe("AF_INET");
    expect(r.env.NCCL_IB_ADDR_RANGE).toBe("25.11.128.0/24");
    expect(r.reasons.NCCL_IB_ADDR_FAMILY).toMatch(/mlx5_5 has its RoCE v2 IPv4 GID at index 5/);
  });

  test("ipv6-only, an IPv6-only RoCE fabric on rails fd00:10:0:1::/64 … fd00:10:0:8::/64, NCCL 2.23 → NCCL_IB_ADDR_FAMILY=AF_INET6 and NCCL_IB_ADDR_RANGE=fd00:10::/60", async () => {
    const io = captureIo();
    expect(await main(["nccl-env", "--example", "ipv6-only", "--nccl-version", "2.23"], io)).toBe(0);
    expect(io.out).toMatch(/^NCCL_IB_HCA==mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8$/m);
    expect(io.out).toMatch(/^NCCL_IB_ADDR_FAMILY=AF_INET6$/m);
    expect(io.out).toMatch(/^NCCL_IB_ADDR_RANGE=fd00:10::\/60$/m);
    expect(io.out).not.toMatch(/^NCCL_IB_GID_INDEX=/m);
    expect(io.out).toMatch(
      /^# the smallest IPv6 range, at most a \/64 \(one LAN\), holding every data HCA's RoCE v2 address \(mlx5_1 fd00:10:0:1::2, /m,
    );
    // Unknown release: the uniform index for older NCCL as well, which every release then takes.
    const unknown = deriveNcclEnv(await example("ipv6-only"));
    expect(unknown.env).toMatchObject({
      NCCL_IB_GID_INDEX: "3",
      NCCL_IB_ADDR_FAMILY: "AF_INET6",
      NCCL_IB_ADDR_RANGE: "fd00:10::/60",
    });
  });

  test("ib-8x-hdr: no GID variable", async () => {
    const r = deriveNcclEnv(await example("ib-8x-hdr"));
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
    expect(Object.keys(r.env).filter((k) => /GID|ADDR/.test(k))).toEqual([]);
  });

  test("bond-management: the management bond stays out; h100-18hca: natural order of the 16 GPU-near data HCAs", async () => {
    const bond = deriveNcclEnv(await example("bond-management"), { network: { kind: "host" } });
    expect(bond.env.NCCL_IB_HCA).toBe("=mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9");
    expect(bond.env.NCCL_SOCKET_IFNAME).toBe("=bond0");
    const h100 = deriveNcclEnv(await example("h100-18hca"));
    // mlx5_17 has no GPU within a PCIe switch while the 16 others do: a storage/front-end NIC, not a rail.
    expect(h100.dataHcas).toHaveLength(16);
    expect(h100.env.NCCL_IB_HCA).toMatch(/,mlx5_9,mlx5_10,.*mlx5_16$/);
  });

  test("port-down and no-rocev2-gid: the broken HCA is left out", async () => {
    expect(deriveNcclEnv(await example("port-down")).env.NCCL_IB_HCA).not.toMatch(/mlx5_3/);
    const noGid = deriveNcclEnv(await example("no-rocev2-gid"));
    expect(noGid.env.NCCL_IB_HCA).not.toMatch(/mlx5_5/);
    expect(noGid.findings.map((f) => `${f.code} ${f.subject}`)).toContain("NCCL_NO_ROCEV2_IPV4_GID mlx5_5");
  });

  test("-o k8s on the seed is a container env list", async () => {
    const io = captureIo();
    expect(await main(["nccl-env", "--example", "a100-8x-roce", "-o", "k8s"], io)).toBe(0);
    expect(io.out).toMatch(/^- name: NCCL_IB_HCA\n {2}value: "=mlx5_1,/);
  });

  test("an unknown example is a usage error", async () => {
    const io = captureIo();
    expect(await main(["nccl-env", "--example", "nope"], io)).toBe(2);
    expect(io.err).toMatch(/unknown example "nope"/);
  });
});

describe("analysers judged against the seed node", () => {
  test("NCCL's list with the management NIC mlx5_0 → warning with the exact NCCL_IB_HCA to set", async () => {
    const r = analyzeNcclLog(fixtureText("nccl-logs", "mgmt-nic-2.21.txt"), {
      inventory: await example("a100-8x-roce"),
    });
    const f = r.findings.find((x) => x.code === "NCCL_LOG_MGMT_NIC");
    expect(f?.fix).toMatch(/NCCL_IB_HCA==mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8/);
  });

  test("2-node all_reduce at ~185 GB/s passes against the seed's 8×HDR; ~9 GB/s fails with the socket hint", async () => {
    const inventory = await example("a100-8x-roce");
    const pass = analyzeNcclTests(fixtureText("nccl-tests", "allreduce-2node-a100-hdr-185.txt"), { inventory });
    expect(pass.findings.map((f) => f.code)).toContain("NCCL_TESTS_BANDWIDTH_OK");
    expect(pass.findings.filter((f) => f.severity === "error")).toEqual([]);
    const fail = analyzeNcclTests(fixtureText("nccl-tests", "allreduce-2node-socket-9.txt"), { inventory });
    expect(fail.findings.map((f) => f.code)).toEqual(
      expect.arrayContaining(["NCCL_TESTS_SOCKET_SUSPECTED", "NCCL_TESTS_BANDWIDTH_LOW"]),
    );
  });
});
