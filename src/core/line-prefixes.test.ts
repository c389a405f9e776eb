import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PREFIX_FAMILIES, type WrapperName } from "./line-prefixes.js";

/**
 * The patterns the normalisation layer used before the families were read by index: each family must end its prefix
 * exactly where its pattern's match ends, and match nothing the pattern does not. The shapes behind them: Open MPI
 * --tag-output https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html ; srun --label
 * https://slurm.schedmd.com/srun.html#OPT_label ; kubectl logs --prefix/--timestamps
 * https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/ ; Ray
 * https://docs.ray.io/en/latest/ray-observability/user-guides/configure-logging.html ; Python logging
 * https://docs.python.org/3/library/logging.html#logrecord-attributes ; pdsh https://linux.die.net/man/1/pdsh ; docker
 * compose logs https://docs.docker.com/reference/cli/docker/compose/logs/ ; journalctl
 * https://man7.org/linux/man-pages/man1/journalctl.1.html and moreutils ts https://manpages.debian.org/moreutils/ts.1.en.html ;
 * torchrun https://docs.pytorch.org/docs/stable/elastic/run.html
 */
const PATTERNS: Record<WrapperName, RegExp> = {
  tag_output: /^[ \t]*\[\d+,(\d+)\]<std(?:out|err)>:[ \t]?/,
  kubectl_prefix: /^\[pod\/[^\]/\s]+\/[^\]\s]+\] ?/,
  kubectl_timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) /,
  bracket_datetime: /^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\] ?/,
  srun_label: /^ {0,3}(\d{1,5}): /,
  editor_line_number: /^ *\d{1,7} ?\| ?/,
  ray_actor: /^(?:\((?:[\w.-]+ |[\w.-]+ [\w.=-]+ |[\w.-]+, rank=\d{1,9}, )?pid=\d+(?:, ip=[\d.a-f:]+)?\) ?)+/,
  comment_star: /^ ?\* ?/,
  // CommonMark block quotes: https://spec.commonmark.org/0.31.2/#block-quotes
  markdown_quote: /^ {0,3}> ?/,
  logger:
    /^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d+ - (?:[\w.-]+ - )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - |[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w./-]+:\d+\] )/,
  pdsh_host: /^([A-Za-z][\w-]*[\d.-][\w.-]*|\d{1,3}(?:\.\d{1,3}){3}): /,
  compose_service: /^[A-Za-z0-9][\w.-]* +\|(?: |$)/,
  syslog:
    /^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})? [^\s:[]+ [\w./-]+(?:\[\d{1,10}\])?: /,
  time_of_day: /^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})? /,
  torchrun_rank: /^\[(?:default|rank)\d{1,6}\]: ?/,
  horovod_tag:
    /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})? \d{4})?\[(\d{1,9})\]<std(?:out|err)>:/,
  prepend_rank: /^\[(\d{1,6})\] (?!NCCL (?:INFO|WARN|TRACE|CALL))(?!.*[^ \t]\[\1\] +\d)/,
  grep_prefix:
    /^(?:\d{1,9}:(?!\d)|(?![\w./-]*\.(?:h|hh|hpp|c|cc|cpp|cu|cuh|py):)(?:[\w.-]*\/[\w./-]*|[\w./-]*\.(?:log|txt|out|err)(?:\.\d+)?|[\w./-]*[_-]log):(?:\d{1,9}:(?!\d))?)/,
  cat_number: /^ *\d{1,9}\t/,
  // A text UI's pane border (k9s' log view), shape seen in https://github.com/NVIDIA/nccl/issues/733
  pane_border: /^[│┃║] ?/,
};

const byPattern = (name: WrapperName, line: string): number => {
  const m = PATTERNS[name].exec(line);
  return m ? m[0].length : -1;
};

// Prefixes in the shapes the sources above show, with this test's own hosts, pids and times.
const SAMPLES = [
  "[1,0]<stdout>:gpu-a:10:11 [0] NCCL INFO Using network IB",
  "[1,12]<stderr>:\tNCCL version 2.21.5",
  "        [1,3]<stdout>:        2048            32     float",
  "\t[1,0]<stdout>:# Using devices",
  "   [1,0]<stdout",
  "[pod/trainer-0/worker] gpu-a:1:2 [0] NCCL INFO x",
  "2026-03-13T22:26:02.123456789Z gpu-a:1:2 [0] NCCL INFO x",
  "2026-03-13T22:26:02+02:00 line",
  "[2026-03-13 22:26:02] gpu-a:1:2 [0] NCCL INFO x",
  "[2026-03-13T22:26:02,118]line",
  "  3: gpu-a:1:2 [0] NCCL INFO x",
  "123456: too long a task",
  "  12 | gpu-a:1:2 [0] NCCL INFO x",
  "12|x",
  "(RayWorkerWrapper pid=336, ip=10.1.2.3) (pid=12) gpu-a:1:2 [0] NCCL INFO x",
  "(pid=12)x",
  "(RayTrainWorker pid=7, ip=fe80::1) x",
  // A launcher running one Ray task per node: https://github.com/skypilot-org/skypilot/pull/3217
  "(head, rank=0, pid=21170) # nThread 1 nGpus 8",
  "(worker1, rank=1, pid=20311, ip=10.164.0.23) 10.164.0.22",
  "(head, rank=, pid=1) x",
  // vLLM's worker processes: https://github.com/vllm-project/vllm/issues/17756
  "(VllmWorker rank=0 pid=403) gpu-a:403:403 [0] NCCL INFO x",
  "(VllmWorker TP1 pid=404) x",
  "(a b c pid=1) x",
  "(head rank=0, pid=1) x",
  // Files named `…_log` grepped together (shape seen at
  // https://github.com/FlagOpen/FlagPerf/blob/main/base/toolkits/interconnect-MPI_intraserver/dcu/BW/main.sh).
  "10.20.1.11_run_log:# Avg bus bandwidth    : 182.417",
  "worker-log:12:x",
  "catalog:x",
  " * mlx5_0 1 3",
  "> gpu-a:1:2 [0] INFO Using internal Network Socket",
  "   >x",
  "    > four spaces: code, not a quote",
  ">",
  "*x",
  "2025-06-11 09:12:05,301 - trainer - INFO - NCCL version 2.17.1",
  "2025-06-11 09:12:05.301 - ERROR - boom",
  "2025-06-11 09:12:05,301 - INFO - WARNING - nested",
  "I0611 09:12:01.118220 140211 run.py:757] gpu-a:1:2 [0] NCCL INFO x",
  "kr-node-01: mlx5_0 port 1 ==> ib0 (Up)",
  "10.20.3.41: # Using devices",
  "10.20.3: x",
  "10.20.3.4567: x",
  "10.20.3.41:x",
  "Port: 1",
  "host.example: line",
  "",
  "[1,0]<stdout",
  "2026-03-13T22:26:02Z",
  "trainer-1  | gpu-a:1:2 [0] NCCL INFO x",
  "trainer_1  |",
  "bench.worker-0 | #  Rank  0 Group  0",
  "_x  | x",
  "GPU0|x",
  "Dec  5 12:00:01 gpu-node-7 python3[4121]: gpu-a:1:2 [0] NCCL INFO x",
  "Dec 05 12:00:01.123456 gpu-node-7 kernel: mlx5_core 0000:17:00.0: x",
  "Dec 5 12:00:01 gpu-a:1:2 [0] NCCL INFO x",
  "Dec 05 12:00:01 ",
  "Dec 05 12:00:01 host prog[x]: y",
  "Decx 5 12:00:01 y",
  "[default0]:gpu-a:1:2 [0] NCCL INFO x",
  "[rank12]: Traceback (most recent call last):",
  "[rank]: x",
  "[default1234567]:x",
  "[0]<stdout>:gpu-a:1:2 [0] NCCL INFO x",
  "Sat Dec  5 12:00:01 2026[1]<stderr>:# nThread 1",
  "Sat Dec  5 12:00:01 2026 [1]<stderr>:x",
  "[3] gpu-a:1:2 [0] NCCL INFO x",
  "[3] NCCL INFO x",
  "[5] NCCL failure common.cu:908 'unhandled cuda error'.",
  "[4] h200-b:5012:5594 [3] NCCL INFO Channel 08/0 : 12[4] -> 11[3] via P2P/CUMEM",
  "logs/rank0.log:gpu-a:1:2 [0] NCCL INFO x",
  "rank0.log:12:gpu-a:1:2 [0] NCCL INFO x",
  "slurm-4412.out:# nThread 1",
  "train.log.1:x",
  "gpu-a.example.com:1:2 [0] NCCL INFO x",
  "12:gpu-a:1:2 [0] NCCL INFO x",
  "12:00:01 gpu-a:1:2 [0] NCCL INFO x",
  "     1\tNCCL version 2.21.5",
  "12\tx",
  "include/socket.h:344 WARN Socket creation failed",
  "include/socket.h:344WARN x",
  "logs/worker-0.log:1048576        262144     float",
  "src/transport/net_ib.cc:123 NCCL WARN x",
  "[0]      524288   131072   float   sum   -1[0]   104.45",
  "[0] gpu-a:1:2 [0] NCCL INFO x",
  "[1] Sat Dec  5 12:00:01 2026[1]<stdout>:x",
  "│ gpu-a:1:2 [0] NCCL INFO x",
  "┃NCCL version 2.10.3+cuda11.3",
  "║ ",
  " │ indented border",
  "|x",
];

describe("each wrapper family is read by index exactly where its pattern matches", () => {
  test.each(SAMPLES)("%j", (line) => {
    for (const f of PREFIX_FAMILIES)
      expect([f.name, f.at(line, 0, line.length)]).toEqual([f.name, byPattern(f.name, line)]);
  });

  test("any line built from the pieces prefixes are made of: the same answer as the pattern", () => {
    const piece = fc.constantFrom(
      "[",
      "]",
      "1",
      "12",
      "2026",
      "-",
      "03",
      "13",
      "T",
      " ",
      ":",
      "22",
      ".",
      ",",
      "Z",
      "+",
      "<stdout>",
      "<stderr>",
      ":",
      "pod/",
      "/",
      "|",
      "*",
      "(",
      ")",
      "pid=",
      ", ip=",
      "a",
      "f",
      "Ray",
      "INFO",
      " - ",
      "ERROR",
      "I0611",
      "x.py",
      "\t",
      "kr-node",
      "_",
      "Dec",
      "default",
      "rank",
      "trainer-1",
      "python3",
      "<stdout>:",
      "Sat",
      "2026",
      "log",
      ".log",
      "\t",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const line = parts.join("");
        for (const f of PREFIX_FAMILIES)
          expect([f.name, line, f.at(line, 0, line.length)]).toEqual([f.name, line, byPattern(f.name, line)]);
      }),
      { numRuns: 3000 },
    );
  });

  test("a family reads only its line: a prefix cut by the line's end is no prefix", () => {
    const s = "[1,0]<stdout>:x\n";
    const tag = PREFIX_FAMILIES.find((f) => f.name === "tag_output")!;
    expect(tag.at(s, 0, 10)).toBe(-1);
    expect(tag.at(s, 0, 15)).toBe(14);
  });

  test("the facts a prefix names: Open MPI's rank, Slurm's task, pdsh's host", () => {
    const fact = (name: WrapperName, line: string) => PREFIX_FAMILIES.find((f) => f.name === name)?.fact?.of(line, 0);
    expect(fact("tag_output", "[1,12]<stdout>:x")).toBe("12");
    expect(fact("srun_label", "  3: x")).toBe("3");
    expect(fact("pdsh_host", "kr-node-01: x")).toBe("kr-node-01");
    expect(fact("pdsh_host", "10.20.3.41: x")).toBe("10.20.3.41");
  });
});
