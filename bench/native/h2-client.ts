/**
 * The native kubelet stand-in (h2-unary-client.c) for benches: compiled on demand with the machine's C compiler
 * and libnghttp2, then run against a plugin socket. Where either is missing the bench says so and falls back to
 * its JavaScript clients.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { grpcFrame } from "../../test/support/lean-grpc.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "h2-unary-client.c");

/** Compiles the client into a temp dir: its path, or why it cannot be built here. `removeNativeClient` cleans up. */
export function buildNativeClient(): { ok: true; path: string } | { ok: false; reason: string } {
  const out = join(mkdtempSync(join(tmpdir(), "kube-rdma-h2c-")), "h2-unary-client");
  const cc = spawnSync("cc", ["-O2", "-o", out, SOURCE, "-lnghttp2"], { encoding: "utf8" });
  if (cc.error) return { ok: false, reason: `no C compiler (${cc.error.message})` };
  if (cc.status !== 0) {
    const first = cc.stderr.split("\n").find((l) => l.includes("error")) ?? cc.stderr.trim();
    return { ok: false, reason: `cc failed (install libnghttp2-dev?): ${first.slice(0, 160)}` };
  }
  return { ok: true, path: out };
}

export function removeNativeClient(path: string): void {
  rmSync(dirname(path), { recursive: true, force: true });
}

export type NativeRun = {
  /** Latency of each timed call in ms, sorted. */
  times: number[];
  /** Each distinct response message (unframed) with how many calls got it. */
  bodies: { count: number; message: Buffer }[];
};

/** `calls` sequential unary calls of `path` after `warmup` untimed ones; request i is requests[i % length]. */
export async function runNativeClient(
  binary: string,
  socket: string,
  path: string,
  requests: readonly Buffer[],
  calls: number,
  warmup: number,
): Promise<NativeRun> {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-h2c-req-"));
  const file = join(dir, "requests.bin");
  writeFileSync(file, Buffer.concat(requests.map(grpcFrame)));
  const child = spawn(binary, [socket, path, file, String(calls), String(warmup)]);
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`native client exited ${code}: ${err.trim()}`);
  const times: number[] = [];
  const bodies: NativeRun["bodies"] = [];
  for (const line of out.split("\n")) {
    if (line.startsWith("body ")) {
      const [, count, hex] = line.split(" ");
      const framed = Buffer.from(hex ?? "", "hex");
      bodies.push({ count: Number(count), message: framed.subarray(5) });
    } else if (line) times.push(Number(line) / 1000);
  }
  return { times: times.sort((a, b) => a - b), bodies };
}
