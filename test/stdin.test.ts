import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { analyzeInput } from "../src/cli/commands/analyze.js";
import { readInput } from "../src/cli/input.js";
import { main } from "../src/cli/main.js";
import { streamSource } from "../src/cli/stdin.js";
import { analyzeNcclLog, createNcclLogStream } from "../src/nccl/log/analyzer.js";
import { indexInLine } from "../src/nccl/log/scan.js";
import { captureIo } from "./support/io.js";

const RUN_CLI = fileURLToPath(new URL("./support/run-cli.ts", import.meta.url));

/**
 * An NCCL INFO log of `ranks` ranks in the shape NCCL before 2.9 prints (`comm 0x… rank R nranks N cudaDev D busId B -
 * Init START`, no nNodes): the shape that once made a whole-text scan search the rest of the log for every line. A
 * host name with a non-ASCII character makes UTF-8 sequences straddle pipe chunks.
 */
function oldFormatLog(ranks: number, targetBytes: number): string {
  const nics = Array.from({ length: 8 }, (_, i) => `[${i}]mlx5_${i + 1}:1/RoCE`).join(" ");
  const prefix = (r: number) =>
    `gpu-nöde-${String(r >> 3).padStart(3, "0")}:${30000 + r}:${30100 + r} [${r % 8}] NCCL INFO `;
  const parts: string[] = [];
  let size = 0;
  for (let comm = 0; size < targetBytes; comm++) {
    const id = (0x7f3a00000000 + comm * 4096).toString(16);
    let block = "";
    for (let r = 0; r < ranks; r++) {
      if (comm === 0) block += `${prefix(r)}NCCL version 2.8.4+cuda11.2\n${prefix(r)}NET/IB : Using ${nics}\n`;
      block += `${prefix(r)}comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${r % 8} busId ${(r % 8) * 16 + 7}000 - Init START\n`;
    }
    for (let ch = 0; ch < 4; ch++) {
      for (let r = 0; r < ranks; r++) {
        const next = (r + 1) % ranks;
        const via = r % 8 === 7 ? `NET/IB/${ch}/GDRDMA` : "P2P/IPC/read";
        block += `${prefix(r)}Channel 0${ch} : ${r}[${r % 8}] -> ${next}[${next % 8}] via ${via}\n`;
      }
    }
    for (let r = 0; r < ranks; r++) {
      block += `${prefix(r)}comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${r % 8} busId 7000 - Init COMPLETE\n`;
    }
    parts.push(block);
    size += block.length;
  }
  return parts.join("");
}

type Run = { code: number | null; stdout: string; stderr: string };

function spawnCli(args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, ["--import", "tsx", RUN_CLI, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  // A piece still in flight when the Ctrl-C test stops the child fails with EPIPE: that child was ended on purpose
  // (unhandled, the error failed the whole run under load). Any other write error still fails.
  child.stdin?.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** Writes `bytes` to the child's stdin in uneven pieces, each after the pipe drained (as `kubectl logs` would). */
async function writeInPieces(child: ChildProcess, bytes: Buffer, end: boolean): Promise<void> {
  const stdin = child.stdin;
  if (!stdin) throw new Error("no stdin pipe");
  const sizes = [1, 7, 4093, 65536, 100_003, 17];
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const piece = bytes.subarray(at, at + sizes[k % sizes.length]!);
    at += piece.length;
    if (!stdin.write(piece)) await new Promise((resolve) => stdin.once("drain", resolve));
  }
  if (end) stdin.end();
}

const withoutFile = (json: string) =>
  (JSON.parse(json) as { file: string }[]).map(({ file: _file, ...entry }) => entry);

describe("analyze - : standard input takes the file's streaming path", () => {
  const dir = mkdtempSync(join(tmpdir(), "stdin-"));

  // 24 MiB: past its first 8 MiB the pipe streams, its segments scanned by worker threads; the file is read in one thread.
  test("a 24 MiB NCCL log piped in uneven chunks (UTF-8 split between them) gives the file's exact JSON", async () => {
    const text = oldFormatLog(256, 24 * 1024 * 1024);
    const file = join(dir, "run.log");
    writeFileSync(file, text);
    const fromFile = spawnCli(["analyze", file, "-o", "json"]);
    fromFile.child.stdin?.end();
    const piped = spawnCli(["analyze", "-", "-o", "json"]);
    await writeInPieces(piped.child, Buffer.from(text, "utf8"), true);
    const [a, b] = await Promise.all([fromFile.done, piped.done]);
    expect(a.stderr).toBe("");
    expect(b.stderr).toBe("");
    expect(b.code).toBe(a.code);
    const entries = withoutFile(b.stdout);
    expect(entries).toEqual(withoutFile(a.stdout));
    expect(entries[0]).toMatchObject({ kind: "nccl_log", data: { verdict: "rdma_gdr", ranks: 256 } });
  }, 60_000);

  // 2 MiB: one text, read whole; 20 MiB: streamed, worker threads hold segments in flight when Ctrl-C comes.
  test.each([2, 20])(
    "Ctrl-C while `kubectl logs -f` is still streaming (%i MiB in): the verdict of what arrived is printed, with a note",
    async (mib) => {
      const run = spawnCli(["analyze", "-", "-o", "json"]);
      // More than the pipe holds: once it has drained, the command is reading.
      await writeInPieces(run.child, Buffer.from(oldFormatLog(64, mib * 1024 * 1024), "utf8"), false);
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.stderr).toBe("");
      const [entry] = JSON.parse(r.stdout) as {
        kind: string;
        data: { verdict: string };
        problems: { code: string }[];
      }[];
      expect(entry?.kind).toBe("nccl_log");
      expect(entry?.data.verdict).toBe("rdma_gdr");
      expect(entry?.problems.map((p) => p.code)).toContain("analyze.interrupted");
      expect(r.code).toBe(0);
    },
    60_000,
  );

  test("a stream that stops (interrupt) ends the read quietly: what had arrived is analysed", async () => {
    const stream = new PassThrough();
    const abort = new AbortController();
    const io = Object.assign(captureIo(), { openStdin: () => streamSource(stream, abort.signal) });
    stream.write(oldFormatLog(16, 1000));
    const reading = readInput("-", io, { largeBytes: 8 * 1024 * 1024, headBytes: 64 * 1024 });
    setImmediate(() => abort.abort());
    const input = await reading;
    const entry = await analyzeInput(input, { ctx: {}, kind: undefined, io });
    expect(entry.kind).toBe("nccl_log");
    expect(entry.problems?.map((p) => p.code)).toContain("analyze.interrupted");
    expect(stream.destroyed).toBe(true);
  });

  test("a large input of a kind read whole is refused past its cap with exit 2, from a pipe too", async () => {
    const line = "mlx5_0\t1\t0\tfe80:0000:0000:0000:0ae0:c5ff:fe3c:1a02\t\t\tv1\teth0\n";
    const header = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n";
    const text = header + line.repeat(Math.ceil((17 * 1024 * 1024) / line.length));
    const io = Object.assign(captureIo(), { openStdin: () => streamSource(PassThrough.from([text])) });
    expect(await main(["analyze", "-", "-o", "json"], io)).toBe(2);
    const [entry] = JSON.parse(io.out) as { kind: string; problems: { code: string; message: string }[] }[];
    expect(entry?.kind).toBe("show_gids");
    expect(entry?.problems[0]?.code).toBe("analyze.too_large");
  });

  test("`lint -` of a manifest stream past 16 MiB is a usage error naming the limit, exit 2", async () => {
    const doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler\ndata:\n  k: v\n---\n";
    const text = doc.repeat(Math.ceil((17 * 1024 * 1024) / doc.length));
    const io = Object.assign(captureIo(), { openStdin: () => streamSource(PassThrough.from([text])) });
    expect(await main(["lint", "-"], io)).toBe(2);
    expect(io.err).toMatch(/standard input is over 16 MiB/);
  });
});

describe("the NCCL log scanner stays within each line", () => {
  test("a search never finds a needle past the line's end", () => {
    const s = "a nranks 8\nb nNodes 2\n";
    expect(indexInLine(s, " nNodes ", 0, 10)).toBe(-1);
    expect(indexInLine(s, " nNodes ", 11, 21)).toBe(12);
    expect(indexInLine(s, "nranks", 0, 5)).toBe(-1);
  });

  test("an old-format log held whole reads exactly as the same log fed in 64 KiB chunks", () => {
    const text = oldFormatLog(128, 400_000);
    const stream = createNcclLogStream();
    for (let at = 0; at < text.length; at += 65536) stream.write(text.slice(at, at + 65536));
    const chunked = stream.end();
    const whole = analyzeNcclLog(text);
    expect(whole.data).toEqual(chunked.data);
    expect(whole.data).toMatchObject({ ranks: 128, ncclVersions: ["2.8.4"], verdict: "rdma_gdr" });
  });
});

describe("standard input is read once", () => {
  test("analyze - --snapshot - is refused with the way out, exit 2 (one stream cannot be both)", async () => {
    const io = captureIo("gpu-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n");
    expect(await main(["analyze", "-", "--snapshot", "-"], io)).toBe(2);
    expect(io.err).toMatch(/cannot be both the capture \(-\) and the snapshot/);
  });
});
