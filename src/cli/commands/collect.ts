import { SOURCE_OPTIONS } from "../shared-options.js";
import { type CommandSpec, str, UsageError } from "../spec.js";

/** What other commands take after -o: here they would silently become file names. */
const FORMAT_WORDS = new Set(["json", "yaml", "text", "shell"]);

export const command: CommandSpec = {
  name: "collect",
  noArguments: { hint: "It snapshots this host (or --root DIR): run it on the node you want, with -o FILE." },
  summary: "Write a snapshot of every raw file and command output the checks read (replay with --snapshot)",
  usage: "kube-rdma collect -o FILE [--root DIR | --snapshot FILE | --example NAME]",
  description: `
Reads this host the way \`kube-rdma verify\` does — /sys/class/infiniband, /sys/class/net, the PCI functions of
GPUs and NICs, /sys/module, /proc/driver/nvidia, /proc/net/route, /proc/self/{status,limits}, /dev/infiniband,
the size of /dev/shm, and the outputs of \`ofed_info -s\`, \`nvidia-smi -q -x\` and \`mlnx_qos -i\` per RoCE netdev
(\`dcb pfc show dev\` where mlnx_qos is not installed; \`nvidia-smi nvlink -s\` on NVSwitch boards), \`ip -4 rule show\`
(run with execFile and --command-timeout) — and writes
all of it, as read, into one versioned JSON file (kind "kube-rdma/snapshot", schemaVersion 3). Any command given
--snapshot FILE then sees exactly this host, on any machine: same inventory, same findings.

With --root DIR the files are read under DIR. Command outputs for a --root tree come from
DIR/.kube-rdma/commands.json when it holds that command (an object keyed by the command line, e.g.
"nvidia-smi -q -x", whose values are {exitCode, stdout, stderr, error?}); otherwise the command runs on this
machine. DIR/.kube-rdma/fs-sizes.json may give mount sizes ({"/dev/shm": bytes}).`,
  options: [
    {
      name: "output",
      short: "o",
      type: "string",
      valueName: "FILE",
      description: "Where to write the snapshot JSON (FILE.gz: gzipped); `-` for standard output",
    },
    ...SOURCE_OPTIONS,
    {
      name: "host-commands",
      type: "string",
      valueName: "DIR",
      description:
        "Run ofed_info and nvidia-smi as DIR/ofed_info and DIR/nvidia-smi (the host's /usr/bin mounted read-only), never through PATH",
    },
    {
      name: "own-proc",
      type: "boolean",
      description:
        "With --root: read /proc from this container, not DIR/proc (a hostNetwork pod sees the node's routes and hostname there)",
    },
  ],
  examples: [
    ["kube-rdma collect -o node1.json", "capture this host"],
    ["kube-rdma verify --snapshot node1.json", "verify it later, anywhere"],
    ["kube-rdma collect --root /host -o - | gzip > node1.json.gz", "from a pod with the host mounted at /host"],
    ["kube-rdma verify --snapshot node1.json.gz", "--snapshot reads gzip (and - reads standard input)"],
  ],
  async run({ values, io }) {
    const out = str(values, "output");
    if (out === undefined) {
      throw new UsageError("say where to write the snapshot: -o FILE, or -o - for standard output.");
    }
    if (FORMAT_WORDS.has(out)) {
      throw new UsageError(
        `collect -o takes the FILE to write, not a format: "-o ${out}" would write a file named "${out}". ` +
          "A snapshot is always JSON.",
        `Write it with -o node1.json (or -o node1.json.gz, gzipped), or -o - for standard output; -o ./${out} if you really want that name.`,
      );
    }
    const { readerFromFlags } = await import("../source.js");
    const { collectSnapshot, expandSnapshot } = await import("../../host/snapshot.js");
    const reader = await readerFromFlags(values);
    const progress = io.isTTY && out !== "-";
    if (progress) io.stderr(`collecting ${reader.description} …\n`);
    const root = str(values, "root");
    const snapshot = await collectSnapshot(reader, root !== undefined ? { root } : {});
    const json = `${JSON.stringify(snapshot)}\n`;
    if (out === "-") {
      io.stdout(json);
      return 0;
    }
    const { resolve } = await import("node:path");
    const { writeFileAtomic } = await import("../../host/atomic-write.js");
    const path = resolve(io.cwd, out);
    const { gzipSync } = await import("node:zlib");
    try {
      // Atomic: a full disk or a size limit leaves the previous file whole, never a truncated one.
      await writeFileAtomic(path, out.endsWith(".gz") ? gzipSync(json) : json);
    } catch (err) {
      throw new UsageError(
        `cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`,
        "Pick a writable path, or -o - to print it.",
      );
    }
    const count = (o: object) => Object.keys(o).length;
    const all = expandSnapshot(snapshot);
    io.stderr(
      `wrote ${out}: ${count(all.files)} files, ${count(all.dirs)} directories, ${count(snapshot.links)} links, ` +
        `${count(snapshot.errors)} failed reads, ${count(snapshot.commands)} commands (${Math.round(json.length / 1024)} KiB).\n` +
        `Replay it anywhere with: kube-rdma verify --snapshot ${out}\n`,
    );
    return 0;
  },
};
