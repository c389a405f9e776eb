import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

// A pasted session (`ofed_info -s`, then `nvidia-smi`) whose second command failed on the node: the shape of
// NVIDIA-SMI's driver error as seen in https://github.com/NVIDIA/gpu-operator/issues (host and version ours).
const SESSION = [
  "$ ofed_info -s",
  "MLNX_OFED_LINUX-23.10-1.1.9.0:",
  "$ nvidia-smi",
  "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
  "",
].join("\n");

describe("analyze of a pasted session where one part could not be analysed", () => {
  test("the part is named as not analysed and the run exits 2, never 0", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "kr-session-")), "session.txt");
    writeFileSync(path, SESSION);
    {
      const io = captureIo();
      const code = await main(["analyze", path], io);
      expect(io.out).toContain(`${path}:1 (ofed_info -s): ofed_info`);
      expect(io.out).toMatch(/FAIL: .*; 1 not analysed\n$/);
      expect(io.err).toContain(`could not read or recognise ${path}:3 (nvidia-smi)`);
      expect(io.err.match(/could not read or recognise/g)).toHaveLength(1);
      expect(code).toBe(2);
    }
  });
});
