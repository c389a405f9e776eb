import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { main } from "../../cli/main.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-kubeconfig-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function cluster(env: Record<string, string>) {
  const io = captureIo();
  io.env = { ...env };
  const code = await main(["cluster"], io);
  return { code, err: io.err };
}

describe("a kubeconfig that is not one says what a kubeconfig is, never a TypeError", () => {
  test("an empty $KUBECONFIG file → exit 2, 'is empty', no 'reading clusters'", async () => {
    const r = await cluster({ KUBECONFIG: file("empty", "") });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the kubeconfig .*empty is empty\.\nA kubeconfig is YAML with clusters, users and contexts/);
    expect(r.err).not.toMatch(/Cannot read properties|internal error/);
  });

  test("an empty ~/.kube/config (no $KUBECONFIG) → the same usage error, not an internal error", async () => {
    const home = mkdtempSync(join(tmpdir(), "kube-rdma-home-"));
    mkdirSync(join(home, ".kube"));
    writeFileSync(join(home, ".kube", "config"), "");
    const r = await cluster({ HOME: home });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/\.kube\/config is empty/);
  });

  test("a YAML list, or binary junk → exit 2 naming what it is, no 'context \"undefined\"'", async () => {
    const list = await cluster({ KUBECONFIG: file("list", "- a\n- b\n") });
    expect(list.code).toBe(2);
    expect(list.err).toMatch(/has no current context and no contexts: it is not a kubeconfig/);
    expect(list.err).not.toContain("undefined");
    const junk = await cluster({ KUBECONFIG: file("junk", "\u0000\u0001binary\u0000") });
    expect(junk.err).toMatch(/is binary data, not YAML/);
  });
});
