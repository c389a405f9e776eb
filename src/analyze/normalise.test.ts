import { describe, expect, test } from "vitest";
import { normaliseCapture } from "./normalise.js";

// Row shapes as nccl-tests prints them behind Open MPI's --tag-output (seen in
// https://github.com/NVIDIA/nccl-tests/issues and https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html).
const TAGGED = [
  "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20",
  "[1,0]<stdout>:#  Rank  0 Group  0 Pid  70112 on     kr-a01 device  0 [0x18] NVIDIA H100 80GB HBM3",
  "[1,1]<stdout>:#  Rank  1 Group  0 Pid  52004 on     kr-a02 device  0 [0x18] NVIDIA H100 80GB HBM3",
  "[1,0]<stdout>:           8             2     float     sum      -1    21.40    0.00    0.00      0    20.11    0.00    0.00      0",
].join("\n");

describe("the normalisation layer hands parsers clean lines", () => {
  test("Open MPI --tag-output is removed and its ranks kept as facts", () => {
    const n = normaliseCapture(TAGGED);
    expect(n.removed).toEqual(["tag_output"]);
    expect(n.ranks).toEqual([0, 1]);
    expect(n.text.split("\n")[1]).toBe(
      "#  Rank  0 Group  0 Pid  70112 on     kr-a01 device  0 [0x18] NVIDIA H100 80GB HBM3",
    );
  });

  test("stacked wrappers (kubectl --timestamps around srun --label) come off outermost first, with CRLF and colour", () => {
    const text = "2026-03-13T22:26:02.5Z 0: \u001b[1mhello\u001b[0m\r\n2026-03-13T22:26:03.5Z 1: world\r\n";
    const n = normaliseCapture(text);
    expect(n.removed).toEqual(["kubectl_timestamp", "srun_label"]);
    expect(n.tasks).toEqual([0, 1]);
    expect(n.text).toBe("hello\nworld\n");
  });

  test("colour added after the CRLF (ESC[32m … CR ESC[0m LF) leaves one line per line, not two", () => {
    const text = "\u001b[32m#  Rank  0 Group  0\r\u001b[0m\n\u001b[32m#  Rank  1 Group  0\r\u001b[0m\n";
    expect(normaliseCapture(text).text).toBe("#  Rank  0 Group  0\n#  Rank  1 Group  0\n");
  });

  test("what services put in front of a job's lines comes off: docker compose, journalctl, ts, torchrun, an indented block", () => {
    const lines = [
      "#  Rank  0 Group  0 Pid  70112 on     kr-a01 device  0 [0x18] NVIDIA H100 80GB HBM3",
      "#",
      "# Out of bounds values : 0 OK",
    ];
    const cases: [string, (l: string, i: number) => string, string[]][] = [
      ["docker compose", (l) => `bench-1  | ${l}`, ["compose_service"]],
      ["journalctl", (l, i) => `Dec 05 12:00:0${i} kr-a01 all_reduce_perf[70112]: ${l}`, ["syslog"]],
      ["moreutils ts", (l, i) => `Dec  5 12:00:0${i} ${l}`, ["time_of_day"]],
      ["torchrun --tee", (l, i) => `[default${i}]:${l}`, ["torchrun_rank"]],
      ["a Markdown code block around srun --label", (l, i) => `    ${i}: ${l}`, ["srun_label"]],
      ["a tab inside kubectl's prefix", (l) => `[pod/bench-0/worker] \t${l}`, ["kubectl_prefix"]],
    ];
    for (const [what, wrap, removed] of cases) {
      const n = normaliseCapture(lines.map(wrap).join("\n"));
      expect([what, n.removed, n.text]).toEqual([what, removed, lines.join("\n")]);
    }
  });

  test("a bare time before a line's own `Key word: value` takes only the time (ts, not syslog)", () => {
    const text = ["CA 'mlx5_0'", "\tCA type: MT4129", "\tLink layer: InfiniBand"].map(
      (l, i) => `Dec  5 12:00:0${i} ${l}`,
    );
    const n = normaliseCapture(text.join("\n"));
    expect(n.removed).toEqual(["time_of_day"]);
    expect(n.text.split("\n")[2]).toBe("\tLink layer: InfiniBand");
  });

  test("pdsh host prefixes and a Markdown fence come off; the hosts are kept", () => {
    const n = normaliseCapture("```\nkr-b07: mlx5_0 port 1 ==> ib0 (Up)\nkr-b08: mlx5_0 port 1 ==> ib0 (Up)\n```");
    expect(n.removed).toEqual(["pdsh_host"]);
    expect(n.hosts).toEqual(["kr-b07", "kr-b08"]);
    expect(n.text).toBe("mlx5_0 port 1 ==> ib0 (Up)\nmlx5_0 port 1 ==> ib0 (Up)");
  });

  // Shape seen at https://github.com/aws/aws-ofi-nccl/issues/67 (pdsh -w by address, every line `10.9.35.83: `); the
  // addresses and rows here are our own.
  test("pdsh prefixes that name the host by IPv4 address come off; the addresses are kept", () => {
    const n = normaliseCapture("10.20.3.41: # Using devices\n10.20.3.42: #  Rank  0 Pid 1 on kr-a device  0\n");
    expect(n.removed).toEqual(["pdsh_host"]);
    expect(n.hosts).toEqual(["10.20.3.41", "10.20.3.42"]);
    expect(n.text).toBe("# Using devices\n#  Rank  0 Pid 1 on kr-a device  0\n");
  });

  // Shape seen at https://github.com/bottlerocket-os/bottlerocket-kernel-kit/pull/313 and /pull/304: mpirun
  // --tag-output lines pasted indented by eight spaces. Rows and ranks here are our own.
  test("an indented Open MPI tag comes off with its indentation; the ranks are kept", () => {
    const n = normaliseCapture(
      "        [1,0]<stdout>:#  size  count\n        [1,3]<stdout>:        2048    32   float\n\t[1,1]<stderr>:x\n",
    );
    expect(n.removed).toEqual(["tag_output"]);
    expect(n.ranks).toEqual([0, 1, 3]);
    // The one space after the tag goes with it (as for an unindented tag).
    expect(n.text).toBe("#  size  count\n       2048    32   float\nx\n");
  });

  test("a prefix only some lines carry is not a wrapper: the capture is left as it is", () => {
    const text = "0: one\nplain line\nanother plain line\n1: two";
    expect(normaliseCapture(text)).toEqual({ text, removed: [] });
  });
});

// Pastes copied from a page keep the page's wrapping on every line: a file viewer's empty cells (a gist page,
// https://gist.github.com/jacobkahn/a92f4425abf831ac0799fabe9079263d) or a Markdown list (a pastebin whose every line
// is a bullet, https://pastebin.com/ne4ipn6K).
describe("a page's wrapping of every line comes off when the lines prove it", () => {
  test("a file viewer's trailing ` | |` comes off every line", () => {
    const n = normaliseCapture(
      "# (B) (elements) (us) | |\n8 2 float sum 163.4 0.00 0.00 2e-07 | |\n\n16 4 float sum 162.9 | |",
    );
    expect(n.text).toBe("# (B) (elements) (us)\n8 2 float sum 163.4 0.00 0.00 2e-07\n\n16 4 float sum 162.9");
    expect(n.removed).toEqual(["viewer_cells"]);
  });

  test("a Markdown list's `- ` comes off every line, under the viewer's cells too", () => {
    const n = normaliseCapture("- Before: | |\n- # nThread 1 nGpus 2 | |\n- 8 2 float sum -1 6.21 | |");
    expect(n.text).toBe("Before:\n# nThread 1 nGpus 2\n8 2 float sum -1 6.21");
    expect(n.removed).toEqual(["viewer_cells", "markdown_list"]);
  });

  test("an nvidia-smi box (every line ending in a cell's `|`) and a few bullets are left alone", () => {
    const box =
      "| GPU  Name        Persistence-M |   Bus-Id        Disp.A |\n|   0  NVIDIA H100 80GB    On   |   00000000:18:00.0 Off |";
    expect(normaliseCapture(box)).toEqual({ text: box, removed: [] });
    const notes = "Steps:\n- load the module\nmlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 ==> ib1 (Up)";
    expect(normaliseCapture(notes)).toEqual({ text: notes, removed: [] });
  });
});

// GitHub's renderer turns file names and addresses in a quoted log into links to themselves; a copy of the rendered
// issue keeps them as `[net_ib.cc:101](http://net_ib.cc:101/)` (seen in https://github.com/NVIDIA/nccl/issues/1710).
describe("Markdown links to themselves are the word that was printed", () => {
  test("file names and IP addresses come back; a link to another place stays", () => {
    const n = normaliseCapture(
      [
        "> hb-1:71:90 [0] transport/[net_ib.cc:99](http://net_ib.cc:99/) NCCL WARN NET/IB : Got completion from peer [10.8.0.3](http://10.8.0.3)<4001> with status=9",
        "> see [the guide](https://example.org/guide)",
      ].join("\n"),
    );
    expect(n.text).toContain("transport/net_ib.cc:99 NCCL WARN NET/IB : Got completion from peer 10.8.0.3<4001>");
    expect(n.text).toContain("[the guide](https://example.org/guide)");
  });
});

// grep -H puts the file's name before every line, and -n its line number after it (`logs/r0.log:12:`); a file grep
// named without -n whose own lines start with a number and a colon on a few lines (a shell prompt's `6:~$`, a viewer's
// numbers) keeps those numbers: they are the text's.
describe("grep's file name, with or without its line numbers", () => {
  test("-H alone: only the name comes off, a number that starts a line's own text stays", () => {
    const lines = [
      "# nThread 1 nGpus 1 minBytes 8",
      "6:~$ ./all_reduce_perf -g 1",
      "#  Rank  0 Group  0",
      "#",
      "# Using devices",
    ];
    const n = normaliseCapture(lines.map((l) => `logs/w0.log:${l}`).join("\n"));
    expect(n.text.split("\n")).toEqual(lines);
  });
  test("-Hn: the name and the number come off every line", () => {
    const lines = ["# nThread 1 nGpus 1 minBytes 8", "#  Rank  0 Group  0", "#", "# Using devices"];
    const n = normaliseCapture(lines.map((l, i) => `logs/w0.log:${i + 1}:${l}`).join("\n"));
    expect(n.text.split("\n")).toEqual(lines);
  });
});

// nvidia-smi underlines its header on a terminal; a copy that dropped each ESC keeps `[4m` and `[0m` glued to the text
// (shape seen at https://github.com/sgl-project/sglang/issues/26039, an environment dump). Devices ours.
describe("colour codes whose ESC a copy dropped", () => {
  const header = "\t[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID[0m";
  const rows = [
    "GPU0\t X \tNV18\tPXB\t0-47\t0\t\tN/A",
    "GPU1\tNV18\t X \tSYS\t48-95\t1\t\tN/A",
    "",
    "NIC Legend:",
    "",
    "  NIC0: mlx5_4",
  ];

  test("come off where a reset and another code are glued to the text", () => {
    const text = normaliseCapture([header, ...rows].join("\n")).text;
    expect(text.split("\n")[0]).toBe("\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID");
  });

  test("a bracketed word alone, with no reset beside it, is the text's own", () => {
    expect(normaliseCapture("see note [1m] below\nok").text).toBe("see note [1m] below\nok");
  });
});
