/**
 * WARNs NCCL prints on its way out of ncclCommInitRank, and the results it hands back to the program, read by what they
 * mean for the run whatever network was chosen. Sources: src/init.cc `Invalid rank requested : %d/%d` (returns
 * ncclInvalidArgument), src/graph/paths.cc `Failed to find reverse path from remNode …` (ncclInternalError) and
 * src/misc/utils.cc ncclGetErrorString ("remote process exited or there was a network error", "invalid argument"), in
 * https://github.com/NVIDIA/nccl. The lines are written here in the shapes seen in the issues named beside each.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const socketStart = (host: string, ip: string) => [
  `${host}:25:25 [0] NCCL INFO Bootstrap : Using [0]eth0:${ip}<0>`,
  `${host}:25:25 [0] NCCL INFO NET/IB : No device found.`,
  `${host}:25:25 [0] NCCL INFO NET/Socket : Using [0]eth0:${ip}<0>`,
];

describe("a rank outside the communicator (https://github.com/Azure/AML-Kubernetes/issues/58)", () => {
  const log = [
    ...socketStart("trainjob-worker-1", "10.40.3.17"),
    "trainjob-worker-1:25:25 [0] init.cc:981 NCCL WARN Invalid rank requested : 2/2",
    "RuntimeError: NCCL error in: /opt/torch/lib/c10d/ProcessGroupNCCL.cpp:518, invalid argument, NCCL version 2.4.8",
  ].join("\n");

  test("its own cause, an error, and the socket run never started", () => {
    const r = analyzeNcclLog(log);
    expect(r.data.network).toBe("Socket");
    expect(r.data.verdict).toBe("init_failed");
    const codes = r.data.warnings.map((w) => w.code);
    expect(codes).toContain("NCCL_WARN_INVALID_RANK");
    expect(codes).not.toContain("NCCL_WARN_OTHER");
    expect(r.findings.find((f) => f.code === "NCCL_WARN_INVALID_RANK")?.severity).toBe("error");
  });

  test("a socket run whose only warnings say IB is absent still ran over sockets", () => {
    const r = analyzeNcclLog(
      [
        ...socketStart("trainjob-worker-1", "10.40.3.17"),
        "trainjob-worker-1:25:25 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
      ].join("\n"),
    );
    expect(r.data.verdict).toBe("socket");
  });
});

describe("a topology path NCCL cannot build (https://github.com/ROCm/rccl/issues/1728)", () => {
  const log = [
    "node-7:18802:18813 [0] NCCL INFO NET/Socket : Using [0]eth0:10.64.12.75<0>",
    "node-7:18802:18813 [0] NCCL INFO Using network Socket",
    "node-7:18802:18813 [0] graph/paths.cc:153 NCCL WARN Failed to find reverse path from remNode 0/200000 nlinks 3 to node 0/700000",
  ].join("\n");

  test("a known error cause, and the init failed", () => {
    const r = analyzeNcclLog(log);
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_TOPOLOGY_PATH"]);
    expect(r.data.verdict).toBe("init_failed");
  });
});

// src/graph/xml.h: `WARN("Attribute %s of node %s not found")` returns ncclInternalError out of ncclTopoGetSystem
// (https://github.com/NVIDIA/nccl); one such WARN behind mpirun's tag is all the issue shows of the run (shape seen at
// https://github.com/awslabs/awsome-distributed-ai/issues/519). Own hosts.
describe("a topology XML NCCL cannot read", () => {
  test("one `Attribute … not found` WARN is a known error cause, and the init failed", () => {
    const r = analyzeNcclLog(
      "[1,9]<stdout>:bench-worker-2:41:77 [1] graph/xml.h:101 NCCL WARN Attribute arch of node cpu not found\n",
    );
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_TOPOLOGY_XML"]);
    expect(r.data.verdict).toBe("init_failed");
  });
});

describe("the result a framework reports after NCCL's own WARN (https://github.com/PrimeIntellect-ai/verifiers/issues/78)", () => {
  test("`remote process exited or there was a network error` follows the socket WARN, not an unknown warning", () => {
    const r = analyzeNcclLog(
      [
        "rl-a:8213:8301 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.12.0.4<51216> failed : Connection refused",
        "2025-06-19 16:59:51 - server - ERROR - [INIT_COMMUNICATOR] failed: NCCL error: remote process exited or there was a network error",
      ].join("\n"),
    );
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_SOCKET_CONNECT"]);
  });

  test("alone, the result is still an error the program got back", () => {
    const r = analyzeNcclLog("RuntimeError: NCCL error: remote process exited or there was a network error");
    expect(r.data.warnings.map((w) => [w.code, w.severity])).toEqual([["NCCL_WARN_NCCL_ERROR_RESULT", "error"]]);
  });
});

describe("XLA's report that the init call failed (https://github.com/jax-ml/jax/issues/4950)", () => {
  const start = [
    "c0ffee:559:653 [1] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>",
    "c0ffee:559:653 [1] NCCL INFO Using network Socket",
    "c0ffee:559:654 [0] external/nccl_archive/src/include/alloc.h:34 NCCL WARN Cuda failure 'out of memory'",
  ];
  const report =
    "E external/xla/pjrt/pjrt_client.cc:1847] Execution of replica 0 failed: Internal: external/xla/service/gpu/nccl_utils.cc:304: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error";

  test("a socket run whose ncclCommInitRank the framework reports failed never started", () => {
    expect(analyzeNcclLog([...start, report].join("\n")).data.verdict).toBe("init_failed");
  });

  test("after an Init COMPLETE the same report is of another communicator: the run had started", () => {
    const done =
      "c0ffee:559:654 [0] NCCL INFO comm 0x55d4c1a0e2f0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE";
    expect(analyzeNcclLog([...start.slice(0, 2), done, start[2], report].join("\n")).data.verdict).toBe("socket");
  });
});

describe("NCCL's error string raised with nothing before it (https://github.com/vllm-project/vllm/issues/4411)", () => {
  test("`RuntimeError: b'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'` is a CUDA failure of init", () => {
    const r = analyzeNcclLog(
      [
        "INFO 04-27 10:11:03 pynccl.py:65] vLLM is using nccl==2.18.1",
        "ERROR 04-27 10:11:04 worker_base.py:157] RuntimeError: b'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'",
      ].join("\n"),
    );
    expect(r.data.ncclVersions).toEqual(["2.18.1"]);
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_CUDA"]);
    expect(r.data.verdict).toBe("init_failed");
  });

  test("a sentence naming the error in other words is not NCCL's string", () => {
    const r = analyzeNcclLog("the job died with an unhandled cuda error, see the attached log");
    expect(r.data.warnings).toEqual([]);
  });
});

// src/bootstrap.cc bootstrapNetRecv: `WARN("Message truncated : received %d bytes instead of %d")` → ncclInternalError
// (https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc). Shape seen at
// https://github.com/vllm-project/vllm/issues/16714: an issue whose log lost its line breaks, the WARN glued after
// `Using network Socket`, its return chain cut off.
describe("a bootstrap message larger than the exchange expects, in a log flattened to one paragraph", () => {
  const log =
    "it hangs while initializing and prints: gpu-a-7:4411:4411 [0] NCCL INFO NET/Socket : Using [0]eno1:10.31.8.57 " +
    "gpu-a-7:4411:4411 [0] NCCL INFO Using network Socket gpu-a-7:4411:5120 [0] bootstrap.cc:77 NCCL WARN Message " +
    "truncated : received 172 bytes instead of 64 gpu-a-7:4411:5120 [0] NCCL INFO bootstrap.cc:130 -...";

  test("the WARN glued after another record is its own, with its own cause; the network is Socket; the init failed", () => {
    const r = analyzeNcclLog(log);
    expect(r.data.network).toBe("Socket");
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_BOOTSTRAP_TRUNCATED"]);
    expect(r.data.verdict).toBe("init_failed");
  });

  test("the same words from NCCL 2.3's socket transport (no bootstrap.cc) are not this cause", () => {
    const r = analyzeNcclLog(
      "gpu-a-7:4411:5120 [0] transport/net_socket.cu:201 NCCL WARN Message truncated : received 9000 bytes instead of 4096",
    );
    expect(r.data.warnings.map((w) => w.code)).not.toContain("NCCL_WARN_BOOTSTRAP_TRUNCATED");
  });
});

// A process that died of a signal between `Init START` (src/init.cc) and any `Init COMPLETE`: shape seen in a runbook
// committed to a public repository (index-file 61924672803), Python's faulthandler line after the last NCCL line.
describe("the process crashed while a communicator was being built", () => {
  const start =
    "NCCL INFO [Rank 0] ncclCommInitRankConfig comm 0x5c1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 3d000 commId 0x9 - Init START";
  test("a segmentation fault after Init START and before Init COMPLETE: the init failed", () => {
    const d = analyzeNcclLog(
      [start, "NCCL INFO Using network IB", "Fatal Python error: Segmentation fault"].join("\n"),
    ).data;
    expect(d.verdict).toBe("init_failed");
  });
  test("after Init COMPLETE it is not an init failure, and without Init START it says nothing of one", () => {
    const complete = start.replace("Init START", "localSize 1 used 0 bytes on core 0 - Init COMPLETE");
    expect(
      analyzeNcclLog([start, complete, "Fatal Python error: Segmentation fault"].join("\n")).data.verdict,
    ).not.toBe("init_failed");
    expect(
      analyzeNcclLog(["NCCL INFO Using network IB", "Segmentation fault (core dumped)"].join("\n")).data.verdict,
    ).not.toBe("init_failed");
  });
});

// RCCL's builds print a return chain with the source's whole build path (`/data/build/hipify/src/init.cc:1448 -> 3`,
// shape seen at https://github.com/ROCm/rccl/issues/1261; paths, hosts and lines here our own): read from its path
// under `src/`, so a connect failure during init is an init failure even after GDRDMA connection lines.
test("a return chain through init.cc printed with its whole build path ends init", () => {
  const d = analyzeNcclLog(
    [
      "gpu-b02:1290:1291 [0] NCCL INFO comm 0x2a91c40 rank 1 nranks 2 cudaDev 0 busId 7000 commId 0x3c1e - Init START",
      "gpu-b02:1290:1291 [0] NCCL INFO Channel 00/0 : 0[b7000] -> 1[7000] [receive] via NET/UCX/0/GDRDMA",
      "gpu-b02:1290:1291 [0] /opt/build/rccl/hipify/src/proxy.cc:1524 NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, retcode 3",
      "gpu-b02:1290:1291 [0] NCCL INFO /opt/build/rccl/hipify/src/transport.cc:164 -> 3",
      "gpu-b02:1290:1291 [0] NCCL INFO /opt/build/rccl/hipify/src/init.cc:1448 -> 3",
    ].join("\n"),
  ).data;
  expect(d.verdict).toBe("init_failed");
});
