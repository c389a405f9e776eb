/**
 * A pasted terminal session often holds several captures — the Baidu CCE reference setup's environment check is `ofed_info -s`, then
 * `nvidia-smi`, then `show_gids`, with prose between them. This finds the command lines and cuts the text into one
 * segment per command, so that each is recognised and diagnosed on its own. Pure.
 */
import { splitLines, stripPrompt } from "../core/text.js";

/** Commands whose output `analyze` knows, as typed at a prompt. */
const CAPTURE_COMMANDS = ["ofed_info", "nvidia-smi", "show_gids", "ibv_devinfo", "ibstat", "ibstatus", "ibdev2netdev"];
const COMMAND_LINE = new RegExp(
  `^(?:sudo\\s+)?(?:\\S*/)?(${CAPTURE_COMMANDS.join("|").replace(/-/g, "\\-")})((?:\\s+-{1,2}[\\w=.-]+|\\s+mlx5_\\w+|\\s+topo|\\s+-q)*)\\s*(?:#.*)?$`,
);

export type TranscriptSegment = {
  /** The command as typed (`ofed_info -s`, `nvidia-smi topo -m`). */
  command: string;
  /** The kind that command prints, used when the output itself is not recognisable (a placeholder, an error). */
  kind: string;
  /** 1-based line of the command in the whole text. */
  line: number;
  text: string;
};

/** The command a line runs, when the line is a capture command (with or without a prompt), else null. */
export function commandOfLine(line: string): string | null {
  const m = COMMAND_LINE.exec(stripPrompt(line).trim());
  return m ? `${m[1]}${(m[2] ?? "").replace(/\s+/g, " ")}` : null;
}

/** Segments of a transcript with at least two capture commands; null when the text is a single capture. */
export function splitTranscript(text: string): TranscriptSegment[] | null {
  const lines = splitLines(text);
  const starts: { index: number; command: string }[] = [];
  lines.forEach((l, index) => {
    const command = commandOfLine(l);
    if (command !== null) starts.push({ index, command });
  });
  if (starts.length < 2) return null;
  return starts.map((s, k) => {
    const end = starts[k + 1]?.index ?? lines.length;
    return {
      command: s.command,
      kind: kindOfCommand(s.command),
      line: s.index + 1,
      text: lines.slice(s.index + 1, end).join("\n"),
    };
  });
}

/** The analyze kind a capture command prints. */
export function kindOfCommand(command: string): string {
  const [name, ...args] = command.split(" ");
  if (name === "nvidia-smi")
    return args.includes("topo") ? "nvidia_smi_topo" : args.includes("-x") ? "nvidia_smi_xml" : "nvidia_smi";
  if (name === "ibstatus") return "ibstat";
  return (name ?? "").replace(/-/g, "_");
}
