/**
 * A pasted terminal session often holds several captures — the Baidu CCE reference setup's environment check is `ofed_info -s`, then
 * `nvidia-smi`, then `show_gids`, with prose between them. This finds the command lines and cuts the text into one
 * segment per command, so that each is recognised and diagnosed on its own. Pure.
 */
import { splitLines, stripPrompt } from "../core/text.js";

/**
 * A launcher that runs the command on a node (`srun -N1 -n1 nvidia-smi topo -m`, `mpirun -np 1 …`): its options
 * (`-N1`, `--nodes=1`, `-n 1`) before the command it runs. What follows is that command's output.
 */
const LAUNCHED = /^(?:srun|mpirun|mpiexec)\s+(?:-{1,2}[\w-]+(?:=\S+|\s+\d+(?=\s))?\s+)*(?=[a-z])/;

/** Commands whose output `analyze` knows, as typed at a prompt. */
const CAPTURE_COMMANDS = ["ofed_info", "nvidia-smi", "show_gids", "ibv_devinfo", "ibstat", "ibstatus", "ibdev2netdev"];
/**
 * A filter the output was piped through (`ibstat | grep mlx5`, `ibv_devinfo | grep -e hca_id -e state`, `| head -20`):
 * what follows is the tool's own output, fewer lines of it.
 */
const OUTPUT_FILTER = String.raw`(?:\s*\|\s*(?:e?grep|head|tail|sort|uniq|less|more|cat)\b[^|#]*)*`;
const commandLine = (filter: string) =>
  new RegExp(
    `^(?:sudo\\s+)?(?:\\S*/)?(${CAPTURE_COMMANDS.join("|").replace(/-/g, "\\-")})((?:\\s+-{1,2}[\\w=.-]+|\\s+[a-z][\\w-]*_\\w+|\\s+\\d{1,2}|\\s+topo|\\s+-q)*)${filter}\\s*:?\\s*(?:#.*)?$`,
  );
const COMMAND_LINE = commandLine("");
const FILTERED_COMMAND_LINE = commandLine(OUTPUT_FILTER);

export type TranscriptSegment = {
  /** The command as typed (`ofed_info -s`, `nvidia-smi topo -m`). */
  command: string;
  /** The kind that command prints, used when the output itself is not recognisable (a placeholder, an error). */
  kind: string;
  /** 1-based line of the command in the whole text. */
  line: number;
  text: string;
};

/**
 * iproute2's `rdma link` (`rdma link show [DEV/PORT]`, https://man7.org/linux/man-pages/man8/rdma-link.8.html): the
 * port-to-netdev listing the ibdev2netdev analyser reads where ibdev2netdev is not installed.
 */
const RDMA_LINK_LINE = /^(?:sudo\s+)?(?:\S*\/)?rdma\s+(?:-\w+\s+)*link(?:\s+show)?(?:\s+[\w./-]+)?\s*$/;

/**
 * An nccl-tests binary as typed (`./build/all_gather_perf -g 8 -b 8 …`, behind `mpirun …` or not): its output is a
 * capture too (the binaries are named `<collective>_perf`, https://github.com/NVIDIA/nccl-tests#usage).
 */
const PERF_LINE = /^(?:(?:mpirun|mpiexec|srun)\s.*?\s)?(?:\S*\/)?([a-z][a-z_]*_perf(?:_mpi)?)(?:\s+\S+)*\s*$/;

/**
 * A file named alone as a label over what follows (`training_log.txt:`, `nccl.log:`): the paste shows that file's
 * contents next. A cut between captures only in a session that a capture command already makes one.
 */
const FILE_LABEL = /^[\w.-]+\.(?:txt|log|out|err)\s*:\s*$/;

/**
 * The command a line runs, when the line is a capture command (with or without a prompt, or labelled in prose as
 * `nvidia-smi:`), else null.
 */
/** A word every command commandOfLine knows holds: a capture tool's name, `rdma` or an nccl-tests `_perf` binary. */
const COMMAND_WORD = /ofed_info|nvidia-smi|show_gids|ibv_devinfo|ibstat|ibdev2netdev|rdma|_perf/;

export function commandOfLine(line: string, filtered = false): string | null {
  // Most lines name no command: one search spares the prompt and command patterns.
  if (!COMMAND_WORD.test(line)) return null;
  // A command quoted as inline code on its own line (`` `mpirun -np 4 ./all_reduce_perf -g 1` ``) is the command.
  const typed = stripPrompt(line.trim().replace(/^`([^`]+)`$/, "$1")).trim();
  // A root prompt glued to the command (`#nvidia-smi topo -m`) when the rest is exactly a capture command.
  const shape = filtered ? FILTERED_COMMAND_LINE : COMMAND_LINE;
  const run = typed.replace(LAUNCHED, "");
  const m = shape.exec(run) ?? shape.exec(run.replace(/^[#$](?=[a-z])/, ""));
  if (m) return `${m[1]}${(m[2] ?? "").replace(/\s+/g, " ")}`;
  if (RDMA_LINK_LINE.test(typed)) return typed.replace(/^(?:sudo\s+)?(?:\S*\/)?/, "").replace(/\s+/g, " ");
  return PERF_LINE.test(typed) ? typed.replace(/\s+/g, " ") : null;
}

/** Segments of a transcript with at least two capture commands; null when the text is a single capture. */
export function splitTranscript(text: string): TranscriptSegment[] | null {
  const lines = splitLines(text);
  const starts: { index: number; command: string }[] = [];
  const commands = lines.map((l) => commandOfLine(l));
  const toolCommand = commands.some((c) => c !== null && !PERF_LINE.test(c));
  lines.forEach((l, index) => {
    const command =
      commands[index] ?? (toolCommand && FILE_LABEL.test(l.trim()) ? l.trim().replace(/\s*:$/, "") : null);
    if (command === null) return;
    // Runs of nccl-tests typed one after another are one nccl-tests capture of several runs.
    const perf = PERF_LINE.test(command);
    const last = starts.at(-1);
    if (perf && last && PERF_LINE.test(last.command)) return;
    starts.push({ index, command });
  });
  // A label that names the command typed right after it (`ibv_devinfo:` over `$ ibv_devinfo`, nothing between) announces
  // that command: one capture, not a command that printed nothing.
  const announced = starts.filter((s, k) => {
    const next = starts[k + 1];
    return !(next && next.command === s.command && lines.slice(s.index + 1, next.index).every((l) => l.trim() === ""));
  });
  // nccl-tests runs alone are one capture: a session needs another capture command too.
  if (announced.length < 2 || announced.every((s) => PERF_LINE.test(s.command))) return null;
  return announced.map((s, k, starts) => {
    const end = starts[k + 1]?.index ?? lines.length;
    return {
      command: s.command,
      kind: kindOfCommand(s.command),
      line: s.index + 1,
      // An nccl-tests command line names the collective its output ran (before nccl-tests 2.14, the only place that
      // does): it stays with its output.
      text: lines.slice(PERF_LINE.test(stripPrompt(lines[s.index]!).trim()) ? s.index : s.index + 1, end).join("\n"),
    };
  });
}

/**
 * The kind the text's one capture command prints (`$ nvidia-smi topo -m` above whatever it printed), when exactly one
 * capture command (no nccl-tests binary) is typed in it; else null. What that command printed may be no output at all
 * (`Failed to run topology matrix`): the command still says which tool failed.
 */
export function soleCommandKind(text: string): string | null {
  const sole = soleCommand(text);
  return sole === null ? null : sole.kind;
}

/**
 * The one capture command typed in a text (no nccl-tests binary), with its 0-based line and kind; else null.
 * `filtered`: a command piped through a filter counts too (`ibstat | grep mlx5`).
 */
export function soleCommand(text: string, filtered = false): { index: number; command: string; kind: string } | null {
  let found: { index: number; command: string; kind: string } | null = null;
  for (const [index, l] of splitLines(text).entries()) {
    const command = commandOfLine(l, filtered);
    if (command === null) continue;
    if (PERF_LINE.test(command) || found !== null) return null;
    found = { index, command, kind: kindOfCommand(command) };
  }
  return found;
}

/** The analyze kind a capture command prints. */
export function kindOfCommand(command: string): string {
  const [name, ...args] = command.split(" ");
  if (name === "nvidia-smi")
    return args.includes("topo") ? "nvidia_smi_topo" : args.includes("-x") ? "nvidia_smi_xml" : "nvidia_smi";
  if (name === "ibstatus") return "ibstat";
  if (RDMA_LINK_LINE.test(command)) return "ibdev2netdev";
  if (PERF_LINE.test(command)) return "nccl_tests";
  return (name ?? "").replace(/-/g, "_");
}
