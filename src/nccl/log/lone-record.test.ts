/**
 * One NCCL record quoted amid an issue's prose is all some reports show of the run: the shape seen at
 * https://github.com/aws/aws-ofi-nccl/issues/1020 (a timestamped `host:pid:tid [dev] func:line NCCL WARN NET/OFI …`
 * between the environment list and the question; NCCL_DEBUG_TIMESTAMP_FORMAT's `[%F %T] ` prefix, NCCL 2.26+,
 * https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html). Read as an NCCL log, weakly; prose without such
 * a record stays unread.
 */
import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

const prose = [
  "Environment: 2 x GPU nodes, Ubuntu 24.04",
  "Container image: our own, CUDA 12.9",
  "",
  "What I get when launching the test across both hosts:",
  "",
  "```",
  "%RECORD%",
  "```",
  "",
  "Ping between the hosts works, so it is not plain IP connectivity.",
  "I suspect the plugin in the image is too old for the installed driver.",
].join("\n");

const record =
  "[2025-11-03 08:41:27] gpu-a17:2211:2219 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available";

describe("one NCCL record amid prose", () => {
  test("is an NCCL log of one host, the plugin's failure among its warnings, network not stated", () => {
    const [e] = analyzeTranscript("issue.md", prose.replace("%RECORD%", record));
    expect(e?.kind).toBe("nccl_log");
    const d = e?.data as { hosts: number; network: string | null; warnings: { code: string }[] };
    expect(d.hosts).toBe(1);
    expect(d.network).toBeNull();
    expect(d.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_NET_PLUGIN_ERROR"]);
  });

  test("the same prose naming NCCL without a record is not", () => {
    const [e] = analyzeTranscript(
      "issue.md",
      prose.replace("%RECORD%", "The NCCL warning names fi_getinfo; the full output is in nccl-out.txt"),
    );
    expect(e?.kind).not.toBe("nccl_log");
  });
});

// A record in bold whose `[dev]` the page dropped (shape seen at https://github.com/horovod/horovod/issues/1408; NCCL
// itself always prints the device, src/debug.cc): still NCCL's `host:pid:tid … NCCL INFO`. Own host and pids.
describe("one bold NCCL record without its device amid prose", () => {
  test("is an NCCL log that decides no network", () => {
    const bold = "**trn-07:4120:4188 NCCL INFO Call to connect returned Connection refused, retrying...**";
    const [e] = analyzeTranscript("issue.md", prose.replace("```\n%RECORD%\n```", bold));
    expect(e?.kind).toBe("nccl_log");
    expect((e!.data as { network: string | null }).network).toBeNull();
  });

  test("a host:port pair in prose is no record", () => {
    const [e] = analyzeTranscript(
      "issue.md",
      prose.replace("%RECORD%", "connect to trn-07:4120 failed, NCCL INFO shows nothing"),
    );
    expect(e?.kind).toBe("unknown");
  });
});
