import type { Io } from "../../src/cli/spec.js";

/** An Io that records what a command prints; stdin is given. */
export function captureIo(stdin = ""): Io & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(t: string) {
      io.out += t;
    },
    stderr(t: string) {
      io.err += t;
    },
    isTTY: false,
    env: {},
    cwd: process.cwd(),
    readStdin: async () => stdin,
  };
  return io;
}
