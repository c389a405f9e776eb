/** `kube-rdma analyze` must not take prose that mentions NCCL INFO for an NCCL log. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { KNOWN_MISSES } from "../../analyze/corpus.js";
import { detectKind } from "../../analyze/detect.js";
import { analyzeTranscript } from "../../analyze/index.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { main } from "../../cli/main.js";

const filesIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".txt") || f.endsWith(".log"))
    .map((f) => join(dir, f));
const docs = [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];
// Corpus captures listed as known misses (some are not recognised yet) are left out, as the property tests do.
const logs = [...filesIn("fixtures/nccl-logs"), ...filesIn("fixtures/captures/nccl_log")].filter(
  (f) => !KNOWN_MISSES.has(f.replace("fixtures/captures/", "")),
);

describe("analyze: an NCCL log is recognised by its lines, not by words about it", () => {
  test.each(docs)("`kube-rdma analyze %s` says it is no format it knows (exit 2)", async (file) => {
    const io = captureIo();
    expect(await main(["analyze", file, "-o", "json"], io)).toBe(2);
    const [entry] = JSON.parse(io.out) as { kind: string }[];
    expect(entry!.kind).toBe("unknown");
  });

  test("a paragraph quoting NCCL INFO and NCCL WARN, and a release note naming an NCCL version, are unknown", () => {
    const prose =
      "Set NCCL_DEBUG=INFO and look for the NCCL INFO lines that say NET/IB; a NCCL WARN line means trouble.\n" +
      "The image ships NCCL version 2.18.3 and CUDA 12.2.\n" +
      "Run the job again and attach the log.\n";
    expect(detectKind(prose, ANALYZERS).kind).toBe("unknown");
  });

  // An nccl-tests run that printed its banner and NCCL's start-up but no result row (it hung or failed during init:
  // https://github.com/NVIDIA/nccl-tests/issues/244) is detected as nccl-tests; its NCCL lines are still read as the
  // NCCL log beside it.
  const readAsLog = (f: string) => {
    const text = readFileSync(f, "utf8");
    const kind = detectKind(text, ANALYZERS).kind;
    if (kind === "nccl_log") return kind;
    // A pasted session (a `show_gids` table, then `training_log.txt:` and the log) gives the log its own entry.
    return analyzeTranscript(f, text).some((e) => e.kind === "nccl_log") ? "nccl_log" : kind;
  };

  test(`every NCCL log fixture (${logs.length}) is still nccl_log`, () => {
    expect(logs.length).toBeGreaterThan(20);
    const wrong = logs.map((f) => [f, readAsLog(f)] as const).filter(([, kind]) => kind !== "nccl_log");
    expect(wrong).toEqual([]);
  });

  test("a job's log where NCCL's start-up is a few lines amid the trainer's own output is nccl_log", () => {
    const trainer = Array.from({ length: 40 }, (_, i) => `step ${i} loss ${(2 - i / 40).toFixed(3)} lr 3e-4`);
    const nccl = [
      "trn-7:812:812 [0] NCCL INFO Bootstrap : Using eth0:10.31.0.7<0>",
      "NCCL version 2.21.5+cuda12.4",
      "trn-7:812:870 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [RO]; OOB eth0:10.31.0.7<0>",
      "trn-7:812:870 [0] NCCL INFO Using network IB",
    ];
    expect(detectKind([...nccl, ...trainer].join("\n"), ANALYZERS).kind).toBe("nccl_log");
  });
});

// One WARN quoted amid prose, NCCL's `file.cc:LINE NCCL WARN` with no host before it and its message wrapped onto the
// next line (shape seen in https://github.com/NVIDIA/nccl/issues/626; this test's own address): an NCCL log, weakly.
test("a lone hostless `transport/net_socket.cc:424 NCCL WARN` line amid prose is an NCCL log of the socket transport", () => {
  const text = [
    "I also meet the same issue on two servers:",
    "",
    "transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 10.9.8.7<41220> message truncated :",
    "receiving 1048576 bytes instead of 65536",
    "Any idea?",
  ].join("\n");
  const [entry] = analyzeTranscript("paste.txt", text);
  expect(entry!.kind).toBe("nccl_log");
  expect((entry!.data as { network: string | null }).network).toBe("Socket");
});

// The IB transport's own note that it opened an HCA without GPUDirect (src/transport/net_ib.cc prints
// `NET/IB : GPU Direct RDMA Disabled for HCA %d '%s'`): NCCL was setting up IB (shape seen in
// https://github.com/NVIDIA/nccl/issues/1676; this test's own host).
test("`NET/IB : GPU Direct RDMA Disabled for HCA` lines alone say the network is IB", () => {
  const text = [
    "dgx-n03:1190452:1191877 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
    "dgx-n03:1190452:1191877 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'",
    "dgx-n03:1190455:1191874 [4] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
  ].join("\n");
  const [entry] = analyzeTranscript("paste.txt", text);
  expect((entry!.data as { network: string | null }).network).toBe("IB");
});
