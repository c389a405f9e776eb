/** The pure parts of preflight: where an image's NCCL is found and its version, and what a comparison names. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { hostileLines } from "../../test/support/property.js";
import { HostTree } from "../examples/tree.js";
import { openReader } from "../host/index.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import { comparePods } from "./compare.js";
import { findNcclLibraries, versionOfLibraryText, versionOfName } from "./nccl-library.js";
import { parseEnviron, readPodFacts } from "./read.js";
import type { Member, PodFacts } from "./types.js";

const readerOf = (t: HostTree) => new SnapshotHostReader(t.toSnapshot({ host: "img" }), "image");

describe("finding NCCL in an image", () => {
  test("a pip-installed NCCL (libnccl.so.2 without a version) is dated by its wheel's dist-info", () => {
    const sp = "/usr/local/lib/python3.10/dist-packages";
    const t = new HostTree()
      .file(`${sp}/nvidia/nccl/lib/libnccl.so.2`, "\x7fELF")
      .dir(`${sp}/nvidia_nccl_cu12-2.21.5.dist-info`);
    expect(findNcclLibraries(readerOf(t), undefined).libraries).toEqual([
      { path: `${sp}/nvidia/nccl/lib/libnccl.so.2`, version: "2.21.5", versionFrom: "package" },
    ]);
  });

  test("a library whose name says nothing is dated by the banner NCCL prints at init; LD_LIBRARY_PATH comes first", () => {
    const t = new HostTree()
      .file("/opt/nccl-build/lib/libnccl.so.2", "\x7fELF\0\0NCCL version 2.23.4+cuda12.6\0")
      .file("/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3", "\x7fELF")
      .file("/opt/amazon/aws-ofi-nccl/lib/libnccl-net-ofi.so.1.11.0", "\x7fELF");
    const found = findNcclLibraries(readerOf(t), "/opt/nccl-build/lib:/usr/local/cuda/lib64");
    expect(found.libraries).toEqual([
      { path: "/opt/nccl-build/lib/libnccl.so.2", version: "2.23.4", versionFrom: "library text" },
      { path: "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3", version: "2.18.3", versionFrom: "file name" },
    ]);
    expect(found.netPlugins).toEqual([
      { path: "/opt/amazon/aws-ofi-nccl/lib/libnccl-net-ofi.so.1.11.0", version: "1.11.0", versionFrom: "file name" },
    ]);
  });

  test("file names: only a full x.y.z counts as a version", () => {
    expect(versionOfName("libnccl.so.2.21.5")).toBe("2.21.5");
    expect(versionOfName("libnccl.so.2")).toBeNull();
    expect(versionOfName("libnccl.so")).toBeNull();
    expect(versionOfName("libnccl-net.so.0.0.0")).toBeNull();
    expect(versionOfName("libcudart.so.12.4.127")).toBeNull();
  });

  test("garbage and hostile long text never throw in the environ and version readers", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        expect(typeof parseEnviron(s)).toBe("object");
        versionOfLibraryText(s);
        versionOfName(s);
      }),
      { numRuns: 300 },
    );
    for (const line of hostileLines()) {
      versionOfLibraryText(line);
      versionOfName(line);
      parseEnviron(line);
    }
    expect(parseEnviron("A=1\0B=x=y\0junk\0=nope\0")).toEqual({ A: "1", B: "x=y" });
  });
});

describe("what a comparison names", () => {
  let seedPod: PodFacts | undefined;
  async function pods(n: number, change: (f: PodFacts, i: number) => void): Promise<Member[]> {
    seedPod ??= await readPodFacts(await openReader({ example: "training-pod" }));
    return Array.from({ length: n }, (_, i) => {
      const facts = structuredClone(seedPod!);
      facts.pod = `w-${i}`;
      change(facts, i);
      return { name: facts.pod, facts };
    });
  }
  const codes = (m: Member[]) => comparePods(m).map((f) => `${f.severity} ${f.code} ${f.subject}`);

  test("an NCCL variable set on one pod only: both values, the odd pod named", async () => {
    const members = await pods(4, (f, i) => {
      if (i === 2) f.env.NCCL_SOCKET_IFNAME = "bond0";
    });
    const [finding] = comparePods(members);
    expect(finding).toMatchObject({ code: "PREFLIGHT_NCCL_ENV_DIFFERS", subject: "w-2: NCCL_SOCKET_IFNAME" });
    expect(finding!.message).toBe("NCCL_SOCKET_IFNAME: eth0 on w-0, w-1, w-3, bond0 on w-2.");
  });

  test("with NCCL ≥ 2.21 and no fixed NCCL_IB_GID_INDEX a moved GID is only a warning: NCCL picks per HCA", async () => {
    const members = await pods(3, (f, i) => {
      delete f.env.NCCL_IB_GID_INDEX;
      f.nccl.library = { path: "/usr/lib/libnccl.so.2", version: "2.21.5", versionFrom: "file name" };
      if (i === 1) f.hcas.find((h) => h.name === "mlx5_5")!.roceV2Ipv4Index = 5;
    });
    expect(codes(members)).toEqual(["warning PREFLIGHT_GID_INDEX_DIFFERS w-1: mlx5_5"]);
  });

  test("a gang whose pods all lack a usable data HCA agrees — on TCP: error PREFLIGHT_NO_DATA_HCA naming them", async () => {
    const members = await pods(4, (f, i) => {
      f.dataHcas = [];
      if (i < 2)
        f.hcas = []; // no rdma/hca requested: nothing in /sys/class/infiniband
      else for (const h of f.hcas) h.uverbs = []; // HCAs listed, but no uverbs device handed to the pod
    });
    const found = comparePods(members).filter((f) => f.code === "PREFLIGHT_NO_DATA_HCA");
    expect(found.map((f) => `${f.severity} ${f.subject}`).sort()).toEqual(["error w-0, w-1", "error w-2, w-3"]);
    const bare = found.find((f) => f.subject === "w-0, w-1")!;
    expect(bare.message).toMatch(/^pod w-0, pod w-1: no RDMA data HCA is usable in the pod \(no device in/);
    expect(bare.message).toContain("NCCL will run over TCP sockets");
    expect(bare.fix).toContain("rdma/hca: 1");
    expect(found.find((f) => f.subject === "w-2, w-3")!.message).toContain("none a data HCA with its uverbs device");
    // Chosen on purpose (NCCL_IB_DISABLE=1 everywhere): not a finding.
    const tcp = await pods(2, (f) => {
      f.dataHcas = [];
      f.hcas = [];
      f.env.NCCL_IB_DISABLE = "1";
    });
    expect(codes(tcp)).toEqual([]);
    // Only some pods lacking one is a difference between the pods, said once by PREFLIGHT_HCA_SET_DIFFERS.
    const some = await pods(3, (f, i) => {
      if (i === 1) f.dataHcas = [];
    });
    expect(codes(some).filter((c) => c.includes("NO_DATA_HCA"))).toEqual([]);
    expect(codes(some)).toContain("error PREFLIGHT_HCA_SET_DIFFERS w-1");
  });

  test("GPUs, GPUDirect, a rail's subnet and pinning are each named", async () => {
    const members = await pods(4, (f, i) => {
      if (i === 0) f.gpus.count = 4;
      if (i === 1) f.gpuDirect = null;
      if (i === 2) f.hcas.find((h) => h.name === "mlx5_2")!.subnet = "25.11.129.32/27";
      if (i === 3) {
        f.memlock.soft = 65536;
        f.ipcLock = false;
      }
    });
    expect(codes(members).sort()).toEqual(
      [
        "error PREFLIGHT_CANNOT_PIN w-3",
        "error PREFLIGHT_GPU_COUNT_DIFFERS w-0",
        "warning PREFLIGHT_GPUDIRECT_DIFFERS w-1",
        "warning PREFLIGHT_SUBNET_DIFFERS w-2: mlx5_2",
      ].sort(),
    );
  });
});

describe("facts from files or other pods are checked before they are compared", () => {
  test("a facts object with any field replaced by junk is refused with a reason, or compares without a throw", async () => {
    const { factsDefect, preflightReport } = await import("./report.js");
    const good = await readPodFacts(await openReader({ example: "training-pod" }));
    expect(factsDefect(good)).toBeNull();
    const junk = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string(),
      fc.constant([1]),
      fc.constant({}),
      fc.constant([{}]),
    );
    const paths: string[][] = [
      ["hcas"],
      ["hcas", "1"],
      ["hcas", "1", "uverbs"],
      ["hcas", "1", "roceV2Ipv4Index"],
      ["hcas", "1", "subnet"],
      ["dataHcas"],
      ["env"],
      ["env", "NCCL_IB_HCA"],
      ["nccl"],
      ["nccl", "library"],
      ["nccl", "netPlugins"],
      ["gpus"],
      ["gpus", "count"],
      ["memlock"],
      ["gpuDirect"],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...paths), junk, (path, value) => {
        const bad = structuredClone(good) as unknown as Record<string, unknown>;
        let at: Record<string, unknown> = bad;
        for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
        at[path.at(-1)!] = value;
        if (factsDefect(bad) !== null) return;
        const members = [
          { name: "a", facts: good },
          { name: "b", facts: bad as unknown as PodFacts },
        ];
        expect(() => preflightReport(members)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

describe("an open attempt is made where the reader can, and recorded for replay", () => {
  test("a --root tree: a device that opens is ok, one that cannot (a directory: EISDIR) keeps its errno through a recording", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { FsHostReader, RecordingHostReader } = await import("../host/index.js");
    const { openOutcome } = await import("./read.js");
    const root = mkdtempSync(join(tmpdir(), "kube-rdma-open-"));
    mkdirSync(join(root, "dev/infiniband/uverbs5"), { recursive: true });
    writeFileSync(join(root, "dev/infiniband/uverbs4"), "");
    const recording = new RecordingHostReader(new FsHostReader(root));
    expect(openOutcome(recording, "/dev/infiniband/uverbs4", true)).toBe("ok");
    expect(openOutcome(recording, "/dev/infiniband/uverbs5", true)).toBe("EISDIR");
    const replay = new SnapshotHostReader(
      {
        kind: "kube-rdma/snapshot",
        schemaVersion: 1,
        host: "h",
        collectedAt: "",
        tool: "",
        root: "/",
        ...recording.record,
      },
      "replay",
    );
    expect(openOutcome(replay, "/dev/infiniband/uverbs4", true)).toBe("ok");
    expect(openOutcome(replay, "/dev/infiniband/uverbs5", true)).toBe("EISDIR");
    expect(openOutcome(replay, "/dev/infiniband/uverbs6", true)).toBe("not-tried");
  });
});
