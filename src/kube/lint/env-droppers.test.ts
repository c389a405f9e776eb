import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { commandWords, envDroppers } from "./env-droppers.js";
import { lintManifestText } from "./index.js";

const dropped = (command: string[], args: string[] = []) =>
  envDroppers(commandWords(command, args)).map((d) => d.program);

describe("what drops the injected NCCL variables, and what does not", () => {
  test("sh -c passes the container's environment on: no finding (the reference job's wrapper is fine)", () => {
    expect(dropped(["/bin/sh", "-c", "python -m torch.distributed.launch --nproc_per_node 8 main.py"])).toEqual([]);
    const r = lintManifestText(readFileSync("fixtures/manifests/good/sh-c-wrapper.yaml", "utf8"), "sh-c.yaml");
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
  });
  // sudoers(5) env_reset; ssh(1) SendEnv/AcceptEnv; env(1) -i; su(1) --login.
  test("sudo (env_reset), ssh to another host, env -i and su - each drop them; sudo -E keeps them", () => {
    expect(dropped(["sudo", "-u", "trainer", "torchrun", "train.py"])).toEqual(["sudo"]);
    expect(dropped(["sudo", "-E", "torchrun", "train.py"])).toEqual([]);
    expect(dropped(["sudo", "--preserve-env=NCCL_IB_HCA", "torchrun"])).toEqual([]);
    expect(dropped(["bash", "-c", "ssh worker-1 python train.py"])).toEqual(["ssh"]);
    expect(dropped(["env", "-i", "PATH=/usr/bin", "python", "train.py"])).toEqual(["env -i"]);
    expect(dropped(["su", "-", "trainer", "-c", "python train.py"])).toEqual(["su -"]);
    expect(dropped(["torchrun", "--nnodes", "2", "train.py"])).toEqual([]);
  });
});
