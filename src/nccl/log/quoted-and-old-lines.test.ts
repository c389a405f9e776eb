/**
 * NCCL 2.2's lines, which carry no `NCCL` before the level (`host:pid:tid [0] INFO …`, `host:pid:tid [0] file.cu:61
 * WARN …`), keep the host their `host:pid:tid` names: the same prefix every later release prints before `[dev]`
 * (`"%s:%d:%d [%d] %s:%d NCCL WARN "`, src/include/debug.h at v2.3.5-5, the first open-source NCCL 2 release, in
 * https://github.com/NVIDIA/nccl; 2.0–2.2 were released as binaries only). A whole capture quoted in Markdown
 * (`> ` on every line, https://spec.commonmark.org/0.31.2/#block-quotes) is read as the capture itself.
 */
import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";
import { normaliseCapture } from "../../analyze/normalise.js";
import { analyzeNcclLog } from "./analyzer.js";

const OLD = [
  "rig-4:301:330 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]",
  "rig-4:301:330 [0] INFO Using internal Network Socket",
  "rig-4:301:330 [0] INFO NET : Using interface eno2:10.8.0.4<0>",
  "NCCL version 2.2.13+cuda9.2",
];

describe("NCCL 2.2 lines without the word NCCL", () => {
  test("a lone `rig-4:301:330 [0] include/socket.h:311 WARN …` counts its host", () => {
    const d = analyzeNcclLog("rig-4:301:330 [0] include/socket.h:311 WARN Socket creation failed : Bad address\n").data;
    expect(d.hosts).toBe(1);
  });

  test("the WARN and the INFO lines give the host, the socket network and the missing libibverbs", () => {
    const d = analyzeNcclLog(`${OLD.join("\n")}\n`).data;
    expect(d.hosts).toBe(1);
    expect(d.network).toBe("Socket");
    expect(d.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_NO_LIBIBVERBS"]);
  });
});

describe("a capture quoted in Markdown", () => {
  const quoted = OLD.map((l) => `> ${l}`).join("\n");

  test("`> ` before every line is a wrapper, removed like a launcher's prefix", () => {
    const n = normaliseCapture(`${quoted}\n>\n> rig-4:301:330 [0] INFO Ring 00 : 0 -> 1 via P2P/IPC`);
    expect(n.removed).toEqual(["markdown_quote"]);
    expect(n.text.split("\n")[0]).toBe(OLD[0]);
  });

  test("the quoted log gives the facts of the log itself", () => {
    const [entry] = analyzeTranscript("pasted.md", `${quoted}\n`);
    const d = entry!.data as ReturnType<typeof analyzeNcclLog>["data"];
    expect(entry!.kind).toBe("nccl_log");
    expect([d.hosts, d.network, d.ncclVersions]).toEqual([1, "Socket", ["2.2.13"]]);
  });

  test("a quote inside a quote, or behind a launcher's tag, comes off too", () => {
    const nested = analyzeNcclLog(OLD.map((l) => `> > ${l}`).join("\n")).data;
    expect(nested.network).toBe("Socket");
    const tagged = analyzeNcclLog(OLD.map((l, i) => `[1,${i % 2}]<stdout>:> ${l}`).join("\n")).data;
    expect([tagged.hosts, tagged.network]).toEqual([1, "Socket"]);
  });
});

/**
 * NCCL 2.1's WARN with the host alone before `[dev]` (`host [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp
 * failed`, then the program's `Failed, NCCL error <file>:<line> 'unhandled system error'`; shape seen in
 * https://github.com/horovod/horovod/issues/98). Its source file names it NCCL's; a line with no source file and no
 * `NCCL` is not read as NCCL's.
 */
describe("NCCL 2.1's WARN with a host and no pid:tid", () => {
  test("is an NCCL log: its host, the IB verbs call that failed, and the init that failed", () => {
    const text = [
      "Running on 2 ranks",
      "cnode3 [1] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed",
      "Failed, NCCL error bench.c:57 'unhandled system error'",
    ].join("\n");
    const [part] = analyzeTranscript("issue.txt", `${text}\n`);
    expect(part?.kind).toBe("nccl_log");
    const d = analyzeNcclLog(`${text}\n`).data;
    expect(d.hosts).toBe(1);
    expect(d.network).toBe("IB");
    expect(d.verdict).toBe("init_failed");
  });

  test("a logger's `worker [1] WARN …` with no NCCL source file is not an NCCL line", () => {
    const [part] = analyzeTranscript("app.log", "worker [1] WARN disk almost full\nworker [1] WARN retrying\n");
    expect(part?.kind).not.toBe("nccl_log");
  });
});

// NCCL_DEBUG_TIMESTAMP_FORMAT puts `[%F %T] ` before each record (src/debug.cc); a guide's expected output kept the time
// and cut the host (shape seen in a guide committed to a public repository, index-file 44542130751). Ranks ours.
describe("records with their time and no host, quoted in a guide", () => {
  const page = [
    "Look for the channel lines:",
    "```",
    "[2026-03-02 08:14:51] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
    "[2026-03-02 08:14:51] NCCL INFO Channel 02/0 : 8[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA",
    "[2026-03-02 08:14:51] NCCL INFO Channel 03/0 : 0[0] -> 8[0] [send] via NET/Libfabric/0/GDRDMA",
    "```",
    "A `via NET/Socket` line means the fabric is not in use.",
  ].join("\n");

  test("read as an NCCL log: the plugin's connections, all with GPUDirect", () => {
    const [e] = analyzeTranscript("guide.md", page);
    expect(e?.kind).toBe("nccl_log");
    expect(e?.data).toMatchObject({ network: "Libfabric", verdict: "rdma_gdr" });
  });
});
