import { expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { terminalSafe } from "./registry.js";

test("control sequences from the data are shown as escapes in text reports; newlines and tabs stay", () => {
  expect(terminalSafe("a\u001b[2J\u001b[Hb\tc\nd\r")).toBe("a\\x1b[2J\\x1b[Hb\tc\nd\\x0d");
});

test("a host whose name carries terminal escapes: verify's text report prints no ESC byte", async () => {
  const snap = exampleSnapshot("a100-8x-roce");
  snap.host = "gpu\u001b[2J\u001b[1;1Hforged: PASS";
  snap.files["/proc/sys/kernel/hostname"] = "gpu\u001b[2J\u001b[1;1Hforged\n";
  const { writeFileSync, mkdtempSync } = await import("node:fs");
  const dir = mkdtempSync(`${(await import("node:os")).tmpdir()}/kube-rdma-esc-`);
  const file = `${dir}/snap.json`;
  writeFileSync(file, JSON.stringify(snap));
  const io = captureIo();
  await main(["verify", "--snapshot", file], io);
  expect(io.out).not.toMatch(/\u001b/);
  expect(io.out).toContain("gpu\\x1b[2J\\x1b[1;1Hforged"); // the name is there, harmless
});
