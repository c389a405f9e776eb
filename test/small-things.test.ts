/** The small things a user hits on the first day (issue: version, typos, -o json, gzip and stdin snapshots). */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { VERSION } from "../src/cli/version.js";
import { captureIo } from "./support/io.js";

const tmp = () => mkdtempSync(join(tmpdir(), "kube-rdma-small-"));

async function seedSnapshotJson(): Promise<string> {
  const io = captureIo();
  expect(await main(["collect", "--example", "a100-8x-roce", "-o", "-"], io)).toBe(0);
  return io.out;
}

describe("first-day stumbles", () => {
  test("`kube-rdma version` prints the version like --version; -o json adds the runtime", async () => {
    const io = captureIo();
    expect(await main(["version"], io)).toBe(0);
    expect(io.out).toBe(`${VERSION}\n`);
    const json = captureIo();
    expect(await main(["version", "-o", "json"], json)).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ version: VERSION, node: process.versions.node });
  });

  test("a mistyped flag says which flag was meant: verify --snapshto → Did you mean --snapshot?", async () => {
    const io = captureIo();
    expect(await main(["verify", "--snapshto", "x.json"], io)).toBe(2);
    expect(io.err).toContain("Unknown option '--snapshto'. Did you mean --snapshot?");
    const far = captureIo();
    expect(await main(["verify", "--zzzzzzzz"], far)).toBe(2);
    expect(far.err).not.toContain("Did you mean");
  });

  test("a mistyped command by one letter is guessed too: verfy → verify", async () => {
    const io = captureIo();
    expect(await main(["verfy"], io)).toBe(2);
    expect(io.err).toContain("Did you mean verify?");
  });

  test("`collect -o json` refuses instead of writing a file named json, and says how to write one", async () => {
    const dir = tmp();
    const io = { ...captureIo(), cwd: dir };
    const spy = captureIo();
    io.stderr = spy.stderr;
    expect(await main(["collect", "--example", "a100-8x-roce", "-o", "json"], io)).toBe(2);
    expect(existsSync(join(dir, "json"))).toBe(false);
    expect(spy.err).toContain('would write a file named "json"');
    expect(spy.err).toContain("-o node1.json");
  });

  test("--snapshot reads a gzipped snapshot (collect -o - | gzip), and collect -o FILE.gz writes one", async () => {
    const dir = tmp();
    const gz = join(dir, "node1.json.gz");
    writeFileSync(gz, gzipSync(await seedSnapshotJson()));
    const io = captureIo();
    expect(await main(["verify", "--snapshot", gz, "-o", "json"], io)).toBe(0);
    expect(JSON.parse(io.out).summary.status).toBe("pass");

    const written = join(dir, "again.json.gz");
    expect(await main(["collect", "--snapshot", gz, "-o", written], captureIo())).toBe(0);
    expect(readFileSync(written).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(await main(["verify", "--snapshot", written], captureIo())).toBe(0);

    writeFileSync(join(dir, "cut.json.gz"), readFileSync(gz).subarray(0, 200));
    const cut = captureIo();
    expect(await main(["verify", "--snapshot", join(dir, "cut.json.gz")], cut)).toBe(2);
    expect(cut.err).toContain("a gzip file that does not decompress");
  });

  test("--snapshot - reads the snapshot from standard input (gzipped or not)", async () => {
    const json = await seedSnapshotJson();
    for (const input of [Buffer.from(json), gzipSync(json)]) {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "support/run-cli.ts"), "verify", "--snapshot", "-", "-o", "json"],
        { stdio: ["pipe", "pipe", "pipe"] },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
      });
      const code = new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
      child.stdin.end(input);
      expect(await code, err).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ summary: { status: "pass" } });
      expect(JSON.parse(out).inventory.source).toBe("snapshot -");
    }
  }, 60_000);
});
