import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { toReadError } from "./errors.js";
import { commandKey, DEFAULT_COMMAND_TIMEOUT_MS } from "./paths.js";
import { MAX_CAPTURE_BYTES } from "./snapshot-schema.js";
import type { CommandOutcome } from "./types.js";

export { DEFAULT_COMMAND_TIMEOUT_MS };

/**
 * Runs a command (never a shell). Resolves at the timeout even when the child cannot be killed (a wedged nvidia-smi
 * in uninterruptible sleep must not hang us). The child leads its own process group, and the timeout kills the whole
 * group, so a grandchild that holds the output open cannot keep this process alive. Never rejects.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): Promise<CommandOutcome> {
  const command = commandKey(file, args);
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C" };
  // A command on no directory of PATH fails to start: said without starting a process (a spawn costs milliseconds,
  // and a --root tree without a tool's capture asks for it once per netdev).
  if (!onPath(file, env.PATH)) {
    return Promise.resolve({
      command,
      exitCode: null,
      stdout: "",
      stderr: "",
      error: notInstalled(command, file),
      durationMs: Math.round(performance.now() - started),
    });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: Omit<CommandOutcome, "command" | "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ command, ...o, durationMs: Math.round(performance.now() - started) });
    };
    // execFile cannot start a process group (it does not pass `detached` on), hence spawn and our own capture.
    // The stop signals are ours before the child exists: a loaded machine can run the child (and a signal can come)
    // before spawn returns, and a signal with no handler yet would end this process with the child's group alive.
    listen();
    const child = spawn(file, [...args], { windowsHide: true, env, detached: true });
    track(child);
    const out = capture(child.stdout);
    const err = capture(child.stderr);
    const tooLarge = () => {
      killGroup(child);
      finish({
        exitCode: null,
        stdout: out.text(),
        stderr: err.text(),
        error: { code: "E2BIG", message: `${command}: output too large` },
      });
    };
    out.onOverflow = tooLarge;
    err.onOverflow = tooLarge;
    child.on("error", (e) => {
      const error = toReadError(e, command);
      if (error.code === "ENOENT") error.message = notInstalled(command, file).message;
      finish({ exitCode: null, stdout: out.text(), stderr: err.text(), error });
    });
    child.on("close", (code, signal) => {
      if (code !== null) return finish({ exitCode: code, stdout: out.text(), stderr: err.text() });
      finish({
        exitCode: null,
        stdout: out.text(),
        stderr: err.text(),
        error: { code: "SIGNAL", message: `${command}: killed by ${signal}` },
      });
    });
    const timer = setTimeout(() => {
      killGroup(child);
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish({
        exitCode: null,
        stdout: "",
        stderr: "",
        error: { code: "ETIMEDOUT", message: `${command}: no answer within ${Math.round(timeoutMs / 1000)} s` },
      });
    }, timeoutMs);
    timer.unref?.();
  });
}

function notInstalled(command: string, file: string) {
  return { code: "ENOENT", message: `${command}: not installed (${file} not found on PATH)` };
}

/**
 * Whether a bare command name names a file in some directory of PATH (an empty entry is the current directory, as
 * execvp reads it). A path, or no PATH at all (the system's default search then applies), counts as found: the
 * spawn decides.
 */
export function onPath(file: string, path: string | undefined, exists: (p: string) => boolean = existsSync): boolean {
  if (file.includes("/") || path === undefined) return true;
  return path.split(":").some((dir) => exists(`${dir === "" ? "." : dir}/${file}`));
}

interface Capture {
  text(): string;
  onOverflow?: () => void;
}

/** Collects a stream up to MAX_CAPTURE_BYTES; past that it keeps the first part and calls onOverflow once. */
function capture(stream: NodeJS.ReadableStream | null): Capture {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let full = false;
  const c: Capture = { text: () => Buffer.concat(chunks).toString("utf8") };
  stream?.on("data", (chunk: Buffer) => {
    if (full) return;
    const room = MAX_CAPTURE_BYTES - bytes;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    bytes += Math.min(chunk.length, room);
    if (chunk.length > room) {
      full = true;
      c.onOverflow?.();
    }
  });
  return c;
}

/**
 * Children in their own group no longer get the terminal's Ctrl-C, so they are ended with this process: on exit, and
 * on SIGINT/SIGTERM/SIGHUP — after which the signal takes its default course unless the command handles it itself.
 */
const running = new Set<ChildProcess>();
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function endAll(): void {
  for (const c of running) killGroup(c);
  running.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  endAll();
  // Our listener alone: restore the default (terminate) and raise the signal again.
  if (process.listenerCount(signal) === 1) {
    unlisten();
    process.kill(process.pid, signal);
  }
}

let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  process.on("exit", endAll);
  for (const s of STOP_SIGNALS) process.on(s, onStopSignal);
}

function unlisten(): void {
  if (!listening) return;
  listening = false;
  process.off("exit", endAll);
  for (const s of STOP_SIGNALS) process.off(s, onStopSignal);
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once("close", () => {
    running.delete(child);
    if (running.size === 0) unlisten();
  });
  child.once("error", () => {
    running.delete(child);
    if (running.size === 0) unlisten();
  });
}

/** SIGKILL to the child's process group; to the child alone where the group cannot be signalled. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid === undefined) return;
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}
