import { execFile } from "node:child_process";
import { toReadError } from "./errors.js";
import { commandKey, DEFAULT_COMMAND_TIMEOUT_MS } from "./paths.js";
import { MAX_CAPTURE_BYTES } from "./snapshot-schema.js";
import type { CommandOutcome } from "./types.js";

export { DEFAULT_COMMAND_TIMEOUT_MS };

/**
 * Runs a command with execFile (never a shell). Resolves at the timeout even when the child cannot be killed (a
 * wedged nvidia-smi in uninterruptible sleep must not hang us). Never rejects.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): Promise<CommandOutcome> {
  const command = commandKey(file, args);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: Omit<CommandOutcome, "command" | "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ command, ...o, durationMs: Math.round(performance.now() - started) });
    };
    const child = execFile(
      file,
      [...args],
      { encoding: "utf8", maxBuffer: MAX_CAPTURE_BYTES, windowsHide: true, env: { ...process.env, LC_ALL: "C" } },
      (err, stdout, stderr) => {
        if (!err) return finish({ exitCode: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: string | number; signal?: string | null };
        if (typeof e.code === "number") return finish({ exitCode: e.code, stdout, stderr });
        if (e.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
          return finish({
            exitCode: null,
            stdout,
            stderr,
            error: { code: "E2BIG", message: `${command}: output too large` },
          });
        }
        if (e.signal) {
          return finish({
            exitCode: null,
            stdout,
            stderr,
            error: { code: "SIGNAL", message: `${command}: killed by ${e.signal}` },
          });
        }
        const error = toReadError(err, command);
        if (error.code === "ENOENT") error.message = `${command}: not installed (${file} not found on PATH)`;
        finish({ exitCode: null, stdout: stdout ?? "", stderr: stderr ?? "", error });
      },
    );
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
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
