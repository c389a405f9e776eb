import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const MAIN = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));

/** Runs the CLI in its own process with its standard output closed before it writes: `kube-rdma … | head -0`. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const script = `const m = await import(${JSON.stringify(MAIN)}); process.exitCode = await m.main(${JSON.stringify(args)});`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("output into a pipe that closes early (| head)", () => {
  test("examples and verify stop quietly: no stack trace, the command's exit code", async () => {
    const examples = await runWithClosedStdout(["examples"]);
    expect(examples.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(examples.code).toBe(0);
    const verify = await runWithClosedStdout(["verify", "--example", "port-down"]);
    expect(verify.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(verify.code).toBe(1);
  });
});
