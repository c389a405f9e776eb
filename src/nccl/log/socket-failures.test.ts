import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

const CAPTURES = "fixtures/captures/nccl_log";
const analyze = (name: string) => analyzeText(name, readFileSync(`${CAPTURES}/${name}`, "utf8"));
const verdictOf = (e: ReturnType<typeof analyze>) => (e.data as { verdict: string; network: string | null }).verdict;

// Shapes: misc/socket.cc `socketStartConnect: Connect to … failed : …` and `socketProgress: Connection closed by
// remote peer …` (https://github.com/NVIDIA/nccl-tests/issues/166, https://github.com/NVIDIA/nccl/issues/1232).
describe("socket transport failures", () => {
  test("a refused connect before any Init COMPLETE on network Socket → init_failed, the connect named as the first error", () => {
    const e = analyze("socket-connect-refused-init-2.18.txt");
    expect(verdictOf(e)).toBe("init_failed");
    expect((e.data as { network: string }).network).toBe("Socket");
    const init = e.findings.find((f) => f.code === "NCCL_LOG_INIT_FAILED");
    expect(init?.message).toMatch(/first error: a TCP connection to a peer failed/);
    expect(e.findings.find((f) => f.code === "NCCL_WARN_SOCKET_CONNECT")?.severity).toBe("error");
    // RDMA was not chosen either: said as well.
    expect(e.findings.some((f) => f.code === "NCCL_LOG_SOCKET")).toBe(true);
  });

  test("a socket run whose peer went away after Init COMPLETE stays a socket verdict", () => {
    const text = readFileSync(`${CAPTURES}/socket-progress-closed-during-connect-2.19.txt`, "utf8").replace(
      "[0] edge-n0:31870:31899 [0] NCCL INFO Channel 00/0 : 1[0]",
      "[0] edge-n0:31870:31870 [0] NCCL INFO comm 0x5621a3c0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE\n[0] edge-n0:31870:31899 [0] NCCL INFO Channel 00/0 : 1[0]",
    );
    expect(verdictOf(analyzeText("after-init.txt", text))).toBe("socket");
  });

  test("a lone WARN line (pid and tid masked as XXXXXX, a date before it) is an NCCL log with its cause", () => {
    const e = analyze("lone-warn-redacted-pid-date-prefix.txt");
    expect(e.kind).toBe("nccl_log");
    expect(e.findings.map((f) => f.code)).toContain("NCCL_WARN_GID_INDEX_INVALID");
    expect(e.findings.some((f) => f.severity === "error")).toBe(true);
  });
});
