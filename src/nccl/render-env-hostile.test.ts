import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { NcclEnvResult } from "./env.js";
import { renderNcclEnv } from "./render-env.js";

/** Variables derived from a host whose interface and device names an attacker chose. */
function hostile(marker: string): NcclEnvResult {
  return {
    env: {
      NCCL_SOCKET_IFNAME: `=eth\`touch ${marker}-tick\``,
      NCCL_IB_HCA: `=mlx5_$(touch ${marker}-dollar)'x`,
      NCCL_IB_GID_INDEX: "3",
      NCCL_BAD: "line1\nexport EVIL=1",
      NCCL_TERM: "\u001b[2J\u001b[Hforged",
    },
    reasons: { NCCL_SOCKET_IFNAME: "the interface eth\u001b[31mX\nFAKE LINE" },
    findings: [],
    dataHcas: [],
  };
}

describe("nccl-env output is safe to source, eval and paste", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-env-"));
  test("-o dotenv sourced by a shell runs nothing (backticks and $(…) stay literal)", () => {
    const marker = join(dir, "dotenv");
    const file = join(dir, "x.env");
    writeFileSync(file, renderNcclEnv(hostile(marker), "dotenv"));
    const out = execFileSync("sh", ["-c", `. "${file}"; printf %s "$NCCL_SOCKET_IFNAME|$NCCL_IB_HCA"`], {
      encoding: "utf8",
    });
    expect(existsSync(`${marker}-tick`)).toBe(false);
    expect(existsSync(`${marker}-dollar`)).toBe(false);
    expect(out).toBe(`=eth\`touch ${marker}-tick\`|=mlx5_$(touch ${marker}-dollar)'x`);
  });
  test("-o shell under eval runs nothing and gives back the exact values", () => {
    const marker = join(dir, "shell");
    const text = renderNcclEnv(hostile(marker), "shell");
    const out = execFileSync("sh", ["-c", `eval "$1"; printf %s "$NCCL_IB_HCA"`, "sh", text], { encoding: "utf8" });
    expect(existsSync(`${marker}-dollar`)).toBe(false);
    expect(out).toBe(`=mlx5_$(touch ${marker}-dollar)'x`);
  });
  test("values with control characters are refused (named in a comment), and no raw escape reaches the output", () => {
    for (const format of ["shell", "dotenv", "text", "k8s"] as const) {
      const text = renderNcclEnv(hostile(join(dir, format)), format);
      expect(text, format).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(text, format).toMatch(/NCCL_BAD not written: its value holds control characters/);
      expect(text, format).not.toMatch(/^export EVIL=1/m);
    }
  });
  test("-o k8s escapes $( as $$( (Kubernetes expands $(VAR) in env values)", () => {
    const text = renderNcclEnv(hostile(join(dir, "k8s")), "k8s");
    expect(text).toContain("=mlx5_$$(touch");
    expect(text).not.toMatch(/[^$]\$\(touch/);
  });
});
