/**
 * A wrapper proven on a run of lines, not on the whole text: a job runner's per-line prefix on the capture it streamed
 * amid its own status lines, and a capture kept in a C block comment amid code. Shapes seen in files committed to
 * public repositories (a SkyPilot job's log in a docs page, index-file 2430513460; show_gids and `nvidia-smi topo -m`
 * in C sources' comments, index-file 41729657341 and 31024165255). Own hosts, GIDs and numbers.
 */
import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "./index.js";
import { PREFIX_RUN, prefixRunsOff } from "./prefix-runs.js";

const smi = [
  "+-----------------------------------------------------------------------------------------+",
  "| NVIDIA-SMI 570.172.08             Driver Version: 570.172.08     CUDA Version: 12.8     |",
  "|-----------------------------------------+------------------------+----------------------+",
  "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
  "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
  "|                                         |                        |               MIG M. |",
  "|=========================================+========================+======================|",
  "|   0  NVIDIA H200                    On  |   00000000:3A:00.0 Off |                    0 |",
  "| N/A   30C    P0             75W /  700W |       0MiB / 143771MiB |      0%      Default |",
  "|                                         |                        |             Disabled |",
  "+-----------------------------------------+------------------------+----------------------+",
];

describe("a job runner's `(task, pid=N) ` on the lines of the capture it streamed, its own lines around", () => {
  const text = [
    ".. code-block:: console",
    "",
    "  $ sky jobs launch -p eval job.yaml",
    "  ✓ Job submitted, ID: 7",
    "  └── Job started. Streaming logs...",
    ...smi.map((l) => `  (gpu-check, pid=5521) ${l}`),
    "  ✓ Job finished (status: SUCCEEDED).",
  ].join("\n");

  test("comes off the run, and the GPU table is read", () => {
    const [entry] = analyzeTranscript("job.rst", text);
    expect(entry?.kind).toBe("nvidia_smi");
    expect(entry?.wrappers?.removed).toContain("ray_actor");
    expect((entry!.data as { gpus: { busId: string }[] }).gpus.map((g) => g.busId)).toEqual(["00000000:3A:00.0"]);
  });

  test(`a run shorter than ${PREFIX_RUN} lines proves nothing, and a prefix any tool's line could carry is never read on runs`, () => {
    const short = smi.slice(0, PREFIX_RUN - 1).map((l) => `(gpu-check, pid=5521) ${l}`);
    expect(prefixRunsOff(["intro", ...short, "outro"])).toBeNull();
    // A pdsh-like `name: ` could be a tool's own `Key: value`: not read on runs.
    expect(prefixRunsOff(["intro", ...smi.map((l) => `gpu-7: ${l}`), "outro"])).toBeNull();
  });
});

describe("a capture kept in a C block comment, code around it", () => {
  const gids = [
    "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
    "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
    "mlx5_0\t1\t0\tfe80:0000:0000:0000:b8ce:f6ff:fe12:0a30\t\t\tv1\teth1",
    "mlx5_0\t1\t1\tfe80:0000:0000:0000:b8ce:f6ff:fe12:0a30\t\t\tv2\teth1",
    "mlx5_0\t1\t2\t0000:0000:0000:0000:0000:ffff:0a2a:0011\t10.42.0.17  \tv1\teth1",
    "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a2a:0011\t10.42.0.17  \tv2\teth1",
    "n_gids_found=4",
  ];
  const text = [
    "#include <infiniband/verbs.h>",
    "",
    "/*",
    " * GID index to use: output of `show_gids` on the test box:",
    " *",
    " * $ show_gids",
    ...gids.map((l) => ` * ${l}`),
    " */",
    "#define IB_GID_INDEX 3",
  ].join("\n");

  test("the comment's gutter comes off between `/*` and `*/`, and the table is read", () => {
    const [entry] = analyzeTranscript("rdma_common.h", text);
    expect(entry?.kind).toBe("show_gids");
    expect((entry!.data as { gids: unknown[] }).gids).toHaveLength(4);
  });

  test("a block whose lines do not all carry the gutter is not this shape", () => {
    const mixed = ["/*", " * a", "not starred", " * b", " */"];
    expect(prefixRunsOff(mixed)).toBeNull();
  });
});

// A tmux pane copied with its `│` border beside the lines of one pane, the shell's history above it (shape seen in a
// cluster log committed to a public repository, index-file 16079408280). Own GUIDs.
test("a text UI's pane border on a run of lines comes off, and the capture in the pane is read", () => {
  const ibstat = [
    "root@7ac3:/# ibstat",
    "CA 'mlx4_0'",
    "        CA type: MT4099",
    "        Number of ports: 1",
    "        Firmware version: 2.42.5000",
    "        Port 1:",
    "                State: Active",
    "                Physical state: LinkUp",
    "                Rate: 40",
    "                Base lid: 7",
    "                SM lid: 3",
    "                Link layer: InfiniBand",
  ];
  const text = ["cd src/", "make", "history", "", ...ibstat.map((l) => `│${l.padEnd(46)}`)].join("\n");
  const [entry] = analyzeTranscript("pane.txt", text);
  expect(entry?.kind).toBe("ibstat");
  expect(entry!.wrappers?.removed).toContain("pane_border");
});

// Captures kept in source code: `-q -x` output commented out with `//` in Java, an nvidia-smi table in a test's string
// literals (shapes seen in files committed to public repositories, index-file 41943231607 and 41646569911). Own GPUs.
describe("a capture kept in source code", () => {
  const xml = [
    '<?xml version="1.0" ?>',
    "<nvidia_smi_log>",
    "    <driver_version>440.31</driver_version>",
    "    <cuda_version>10.2</cuda_version>",
    "    <attached_gpus>1</attached_gpus>",
    '    <gpu id="00000000:05:00.0">',
    "        <product_name>Quadro P5000</product_name>",
    "        <pci><pci_bus_id>00000000:05:00.0</pci_bus_id></pci>",
    "        <fb_memory_usage><total>16278 MiB</total></fb_memory_usage>",
    "    </gpu>",
    "</nvidia_smi_log>",
  ];
  test("behind `//` on every line of a run, amid code: read", () => {
    const text = ["    return info;", "}", "", ...xml.map((l) => `//    ${l}`), "}"].join("\n");
    const [entry] = analyzeTranscript("Parser.java", text);
    expect(entry?.kind).toBe("nvidia_smi_xml");
    expect(entry!.wrappers?.removed).toContain("line_comment");
    expect((entry!.data as { driverVersion: string }).driverVersion).toBe("440.31");
  });
  test('as string literals (`"…\\n" +`), one line each: read', () => {
    const text = [
      "class T {",
      '  String s = "<?xml version=\\"1.0\\" ?>\\n" +',
      ...xml.slice(1).map((l) => `      "${l.replace(/"/g, '\\"')}\\n" +`),
      '      "";',
      "}",
    ].join("\n");
    const [entry] = analyzeTranscript("T.java", text);
    expect(entry?.kind).toBe("nvidia_smi_xml");
    expect((entry!.data as { gpus: unknown[] }).gpus).toHaveLength(1);
  });
});

// Slurm's `srun -l` labels every line with its task (`0: `): a run whose labels repeat is a launcher's, a numbered list
// numbers each item once (shape seen in a Slurm job's output in a cluster's notes committed to a public repository,
// index-file 30233997212, pasted under a job script; rows and figures here our own).
describe("a run of `srun -l` task labels amid a job script and prose", () => {
  const rows = [
    "0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "0: #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    ...[8, 16, 32, 64, 128, 256, 512].map(
      (m) =>
        `0: ${String(m * 1048576).padStart(12)} ${String(m * 16384).padStart(13)}     float    none      -1    ${(m * 7.9).toFixed(1)}  ${(
          (m * 1048576) / (m * 7.9) / 1000
        ).toFixed(
          2,
        )}  ${(((m * 1048576) / (m * 7.9) / 1000) * 0.9375).toFixed(2)}    N/A    ${(m * 7.9).toFixed(1)}  ${(
          (m * 1048576) / (m * 7.9) / 1000
        ).toFixed(2)}  ${(((m * 1048576) / (m * 7.9) / 1000) * 0.9375).toFixed(2)}    N/A`,
    ),
    "0: # Out of bounds values : 0 OK",
    "0: # Avg bus bandwidth    : 124.3",
  ];
  const text = [
    "srun -l --ntasks-per-node=8 \\",
    '  sh -c "',
    "  /opt/nccl-tests/build/all_gather_perf -b 8M -e 512M -f 2 -g 1;",
    '  "',
    "",
    "Sample output:",
    "",
    "  ...",
    ...rows.map((l, i) => (i === 0 ? l : ` ${l}`)),
    " $",
  ].join("\n");

  test("the labels come off the run; the table and the program under the quoted command are read", () => {
    const [entry] = analyzeTranscript("notes.md", text);
    expect(entry?.kind).toBe("nccl_tests");
    expect(entry?.wrappers?.removed).toContain("srun_label");
    expect(entry?.data).toMatchObject({ collective: "all_gather", nranks: 16 });
  });

  test("a numbered list (each number once) is not read as labels", () => {
    const list = Array.from({ length: 9 }, (_, i) => `${i + 1}: step ${i + 1} of the runbook`);
    expect(prefixRunsOff(["Steps:", ...list])).toBeNull();
  });
});

// A test's table of rows, one string per list item (`["<driver_version>…</driver_version>"],`): shape seen in a
// monitoring plugin's Python test committed to a public repository (index-file 11006980213); values our own.
test("a capture kept one line per list item in a script (`['…'],`) is read", () => {
  const xml = [
    '<?xml version="1.0" ?>',
    "<nvidia_smi_log>",
    "<driver_version>551.23</driver_version>",
    "<cuda_version>12.4</cuda_version>",
    "<attached_gpus>1</attached_gpus>",
    '<gpu id="00000000:0B:00.0">',
    "<product_name>NVIDIA RTX A4000</product_name>",
    "<fb_memory_usage>",
    "<total>16376 MiB</total>",
    "</fb_memory_usage>",
    "</gpu>",
    "</nvidia_smi_log>",
  ];
  const text = [
    "import pytest",
    "",
    "STRING_TABLE = [",
    ...xml.map((l, i) => (i % 2 ? `    ["${l.replace(/"/g, '\\"')}"],` : `    ['${l}'],`)),
    "]",
    "",
    "def test_parse():",
    "    assert parse(STRING_TABLE)",
  ].join("\n");
  const [entry] = analyzeTranscript("test_nvidia_smi.py", text);
  expect(entry?.kind).toBe("nvidia_smi_xml");
  expect(entry?.wrappers?.removed).toContain("string_literal");
  expect(entry?.data).toMatchObject({ driverVersion: "551.23", cudaVersion: "12.4" });
});

// A notebook saved with its outputs keeps each printed line as one JSON string ending `\r\n` in the cell's `"text"`
// array (shape seen at https://github.com/ULHPC/tutorials/blob/96ee741453f703a0abadcc954bcf2dfb454f629a/containers/singularity/scripts/HPC%20school%202021.ipynb,
// `!nvidia-smi` run in a cell). Host values ours.
test("a notebook's saved output, one JSON string per printed line, reads as the tool's output", () => {
  const table = [
    "Mon Mar  8 09:12:44 2021       ",
    "+-----------------------------------------------------------------------------+",
    "| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |",
    "|-------------------------------+----------------------+----------------------+",
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    "|===============================+======================+======================|",
    "|   0  Tesla V100-PCIE...  On   | 00000000:AF:00.0 Off |                    0 |",
    "| N/A   36C    P0    38W / 250W |      4MiB / 32510MiB |      0%      Default |",
    "+-------------------------------+----------------------+----------------------+",
  ];
  const cell = [
    "  {",
    '   "cell_type": "code",',
    '   "outputs": [',
    "    {",
    '     "name": "stdout",',
    '     "output_type": "stream",',
    '     "text": [',
    ...table.map((l) => `      "${l}\\r\\n",`),
    "     ]",
    "    }",
    "   ],",
    '   "source": [',
    '    "!nvidia-smi"',
    "   ]",
    "  }",
  ].join("\n");
  const entry = analyzeTranscript("tutorial.ipynb", cell)[0]!;
  expect(entry.kind).toBe("nvidia_smi");
  expect(entry.wrappers?.removed).toContain("string_literal");
  expect(entry.data).toMatchObject({ driverVersion: "450.80.02", cudaVersion: "11.0" });
  expect((entry.data as { gpus: { busId: string }[] }).gpus.map((g) => g.busId)).toEqual(["00000000:AF:00.0"]);
});

// A comment quoting what was typed and printed on each host behind a second gutter, `| ` (shape seen in C sources
// committed to a public repository, index-file 30551364698 and 30980662150): three lines or more a run, none a table's.
describe("a quote bar `| ` before each line of a short run, inside a C comment", () => {
  const source = [
    "/* Set-up:",
    " * Server:",
    " * | $ show_gids | grep mlx5_3 | grep v2",
    " * | DEV  PORT INDEX GID                                  IPv4       VER DEV",
    " * | --   ---  ----  ---                                ---------    --- ---",
    " * | mlx5_3  1 3 0000:0000:0000:0000:0000:ffff:0a0b:1e15 10.11.30.21 v2 ens2f1np1",
    " *",
    " * Client:",
    " * | $ show_gids | grep mlx5_5 | grep v2",
    " * | DEV  PORT INDEX GID                                  IPv4       VER DEV",
    " * | --   ---  ----  ---                                ---------    --- ---",
    " * | mlx5_5  1 3 0000:0000:0000:0000:0000:ffff:0a0b:1e16 10.11.30.22 v2 ens2f1np1",
    " */",
  ].join("\n");

  test("comes off, and both hosts' rows are read", () => {
    const [e] = analyzeTranscript("udp_raw.c", source);
    expect(e?.kind).toBe("show_gids");
    expect(e?.wrappers?.removed).toContain("line_block");
    const gids = (e?.data as { gids: { device: string; ipv4: string }[] } | undefined)?.gids ?? [];
    expect(gids.map((g) => `${g.device} ${g.ipv4}`)).toEqual(["mlx5_3 10.11.30.21", "mlx5_5 10.11.30.22"]);
  });

  test("a Markdown table (its delimiter row) or rows that end with a bar are no quote bar", () => {
    const table = ["| GPU | NIC", "| --- | ---", "| 0 | mlx5_0", "| 1 | mlx5_1"];
    expect(prefixRunsOff(table)).toBeNull();
    expect(prefixRunsOff(["| a b |", "| c d |", "| e f |"])).toBeNull();
  });
});

// A list reply quotes the sender's `ibstat` behind `> ` amid the reply's own unquoted lines (shape seen in a linux-rdma
// mailing-list reply, index-file 26729088200): the quote is not on most of the text's lines, but on a run of them.
describe("a mail's quote on a run of lines amid the reply's own", () => {
  const quoted = [
    "CA 'mlx5_0'",
    "\tCA type: MT4123",
    "\tNumber of ports: 1",
    "\tFirmware version: 20.35.2000",
    "\tHardware version: 0",
    "\tNode GUID: 0x0c42a10300c7d150",
    "\tSystem image GUID: 0x0c42a10300c7d150",
    "\tPort 1:",
    "\t\tState: Active",
    "\t\tPhysical state: LinkUp",
    "\t\tRate: 200",
    "\t\tLink layer: InfiniBand",
  ];
  const reply = [
    "> Any idea why the link trains at 200 only?",
    "",
    "Which firmware? Please send ibstat from both ends.",
    "",
    ...quoted.map((l) => `> ${l}`),
    "",
    "Thanks",
  ].join("\n");

  test("the quoted ibstat is read", () => {
    const [e] = analyzeTranscript("reply.txt", reply);
    expect(e?.kind).toBe("ibstat");
    expect(e?.wrappers?.removed).toContain("markdown_quote");
  });

  test(`a quote on fewer than ${PREFIX_RUN} lines proves nothing on a run`, () => {
    const short = ["Reply:", ...quoted.slice(0, PREFIX_RUN - 1).map((l) => `> ${l}`), "Thanks"];
    expect(prefixRunsOff(short)?.name).not.toBe("markdown_quote");
  });
});
