import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { printNcclEnv } from "../src/cli/commands/nccl-env.js";
import { main } from "../src/cli/main.js";
import { ncclTestsCommand } from "../src/nccl/index.js";
import { captureIo } from "./support/io.js";
import { findHca, ipv4Gid, seedInventory } from "./support/nccl-inventory.js";

describe("kube-rdma bench job", () => {
  test("2 nodes × 8 GPUs → the exact mpirun + all_reduce_perf line with NCCL_ALGO=Ring", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "--nodes", "2", "--gpus", "8"], io)).toBe(0);
    expect(io.out.split("\n")[0]).toBe(
      "mpirun -np 16 -N 8 --bind-to none -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET -x NCCL_ALGO=Ring all_reduce_perf -b 8 -e 8G -f 2 -g 1",
    );
    expect(io.out).toMatch(/NCCL_ALGO=Ring, because NCCL may pick Tree/);
  });

  test("-o json carries schemaVersion, argv, np, env and notes; 4 nodes have no Ring override", async () => {
    const io = captureIo();
    expect(
      await main(["bench", "job", "--nodes", "4", "--gpus", "8", "--collective", "alltoall", "-o", "json"], io),
    ).toBe(0);
    const j = JSON.parse(io.out);
    expect(j).toMatchObject({ schemaVersion: 1, np: 32, env: { NCCL_DEBUG: "INFO" } });
    expect(j.env).not.toHaveProperty("NCCL_ALGO");
    expect(j.argv).toContain("alltoall_perf");
  });

  test("bad usage exits 2 with a message", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "--nodes", "0"], io)).toBe(2);
    expect(io.err).toMatch(/--nodes expects a positive whole number; got 0/);
    const io2 = captureIo();
    expect(await main(["bench"], io2)).toBe(2);
    expect(io2.err).toMatch(/bench job --nodes N --gpus G/);
  });

  test("-b 8G -e 8 (a run that would print no row at all) → exit 2 naming both sizes; -b 1M -e 1M is one size, fine", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "-b", "8G", "-e", "8"], io)).toBe(2);
    expect(io.err).toContain("the smallest message (-b 8G) is larger than the largest (-e 8)");
    expect(await main(["bench", "job", "-b", "1M", "-e", "1M"], captureIo())).toBe(0);
    expect(await main(["bench", "job", "-b", "1025", "-e", "1K"], captureIo())).toBe(2);
  });

  test.each([
    [["bench", "job", "--nodes", "1e9"], "--nodes 1000000000 is more nodes than any Kubernetes cluster holds"],
    [["bench", "job", "--gpus", "100"], "--gpus 100 is more GPUs than one node carries"],
    [["bench", "job", "-e", "99999999999T"], "-e 99999999999T does not fit on any GPU"],
    [["bench", "job", "-e", "256G"], "use at most 128G"],
    [["bench", "job", "-b", "0"], "-b 0: the smallest message must be at least 1 byte"],
    [["job", "pytorch", "--shm-size", "0"], "--shm-size 0 is below 1Gi"],
    [["job", "pytorch", "--shm-size", "512Mi"], "(lint calls it SHM_SMALL)"],
    [["fleet", "verify", "--concurrency", "2.5"], "--concurrency expects a whole number of pods from 1 to 1000"],
    [["job", "nccl-tests", "--nodes", "100000"], "--nodes 100000 is more nodes than any Kubernetes cluster holds"],
    [["job", "pytorch", "--gpus", "200"], "--gpus 200 is more GPUs than one node carries"],
    [["job", "pytorch", "--rdma-count", "100"], "--rdma-count 100 is more HCAs than one node carries"],
  ])("a typo'd size (%j) is refused with the limit, exit 2 — not a job for a billion nodes", async (argv, says) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.err).toContain(says);
    expect(io.err).not.toMatch(/internal error/);
    expect(io.out).toBe("");
  });

  test("the largest real sizes still pass: 65536 nodes, 16 GPUs, -e 128G", async () => {
    expect(await main(["bench", "job", "--nodes", "65536", "--gpus", "16", "-e", "128G"], captureIo())).toBe(0);
  });

  test("the library function refuses impossible input", () => {
    expect(() => ncclTestsCommand({ nodes: 2, gpusPerNode: 0 })).toThrow(RangeError);
    expect(() => ncclTestsCommand({ nodes: 2, gpusPerNode: 8, collective: "nope" })).toThrow(/unknown collective/);
    expect(ncclTestsCommand({ nodes: 1, gpusPerNode: 4, maxBytes: "1G" }).argv.slice(-8)).toEqual(
      ["all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "1"].slice(-8),
    );
  });
});

describe("nccl-env output formats (seed node)", () => {
  const run = (format: string, extra: Record<string, unknown> = {}) => {
    const io = captureIo();
    const code = printNcclEnv(seedInventory(), { output: format, ...extra }, io);
    return { code, out: io.out };
  };

  test("text: each variable under its reason", () => {
    const { code, out } = run("text");
    expect(code).toBe(0);
    expect(out).toMatch(
      /# the 8 data HCAs with an active port.*\nNCCL_IB_HCA==mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8\n/,
    );
    expect(out).toMatch(/\n# NCCL_SOCKET_IFNAME not set: a pod on the pod network/);
    expect(run("text", { network: "host" }).out).toMatch(/\nNCCL_SOCKET_IFNAME==eth0\n/);
    expect(out).toMatch(/\nNCCL_IB_GID_INDEX=3\n/);
    // Tuning is opt-in: the default leaves NCCL's own timeout and QP count, and says why.
    expect(out).toMatch(/\n# NCCL_IB_TIMEOUT not set: left at NCCL's own default/);
    expect(out).not.toMatch(/\nNCCL_IB_QPS_PER_CONNECTION=/);
    expect(run("text", { profile: "reference" }).out).toMatch(/\nNCCL_IB_QPS_PER_CONNECTION=8\n/);
  });

  test("shell exports, dotenv lines", () => {
    expect(run("shell").out).toMatch(/^export NCCL_IB_GID_INDEX=3$/m);
    // Quoted as .env files quote: a value starting with `=` or `^` is not taken for syntax by any dotenv reader.
    expect(run("dotenv", { "pod-interface": "eth0" }).out).toMatch(/^NCCL_SOCKET_IFNAME='=eth0'$/m);
    expect(run("dotenv").out).toMatch(/^NCCL_IB_GID_INDEX=3$/m);
  });

  test("json {schemaVersion, env, reasons, findings}; k8s is a container env list", () => {
    const j = JSON.parse(run("json").out);
    expect(Object.keys(j)).toEqual(["schemaVersion", "env", "reasons", "findings", "dataHcas"]);
    expect(j.env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
    const list = parse(run("k8s").out) as { name: string; value: string }[];
    expect(list[0]).toEqual({ name: "NCCL_IB_HCA", value: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8" });
    expect(list.find((e) => e.name === "NCCL_IB_GID_INDEX")?.value).toBe("3");
  });

  test("no GID choice for an old NCCL → exit 1", () => {
    const io = captureIo();
    const inv = seedInventory((i) => {
      const p = findHca(i, "mlx5_5").ports[0]!;
      p.gids.push(ipv4Gid(5, "25.11.128.130", "v2", "eth5"));
      p.roceV2Ipv4Index = 5;
    });
    expect(printNcclEnv(inv, { output: "text", "nccl-version": "2.18" }, io)).toBe(1);
    expect(io.out).toMatch(/ERROR NCCL_GID_NO_CHOICE/);
  });

  test("bad --nccl-version / --traffic-class are usage errors (exit 2)", async () => {
    const io = captureIo();
    expect(await main(["nccl-env", "--nccl-version", "latest"], io)).toBe(2);
    expect(io.err).toMatch(/--nccl-version expects X\.Y/);
    const io2 = captureIo();
    expect(await main(["nccl-env", "--traffic-class", "300"], io2)).toBe(2);
  });
});
