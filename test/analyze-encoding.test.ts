import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "captures");
const dir = mkdtempSync(join(tmpdir(), "kube-rdma-utf16-"));

/** The capture as Windows PowerShell's `nvidia-smi > out.txt` writes it: UTF-16LE with a BOM, CRLF lines. */
function savedByPowerShell(kind: string, name: string): string {
  const text = readFileSync(join(FIX, kind, `${name}.txt`), "utf8").replace(/\n/g, "\r\n");
  const file = join(dir, `${name}-utf16.txt`);
  writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
  return file;
}

describe("a capture saved as UTF-16 says so, instead of 'not a format kube-rdma recognises'", () => {
  test("nvidia-smi saved by PowerShell → analyze.utf16 with the iconv command, not analysed, exit 2", async () => {
    const file = savedByPowerShell("nvidia_smi", "a100-470");
    const io = captureIo();
    expect(await main(["analyze", file], io)).toBe(2);
    expect(io.out).toMatch(/problem analyze\.utf16: .* is UTF-16 text/);
    expect(io.out).toContain(`iconv -f UTF-16 -t UTF-8 ${file} > capture.txt`);
    expect(io.out).not.toContain("analyze.unknown_kind");
  });

  test("the same with --kind nvidia_smi forced → still the UTF-16 problem, not a parse failure", async () => {
    const io = captureIo();
    expect(await main(["analyze", "--kind", "nvidia_smi", savedByPowerShell("nvidia_smi", "a100-470")], io)).toBe(2);
    expect(io.out).toContain("analyze.utf16");
  });
});
