/**
 * What really drops the NCCL variables a device plugin or platform injects into a container. The kubelet puts them
 * in the container's process environment, and every ordinary child inherits it: `sh -c`, torchrun, python. They are
 * lost only where a program starts the next one with a fresh environment:
 * - `ssh HOST cmd`: the remote command gets sshd's environment, not ours (ssh(1): only SendEnv-listed variables
 *   that the server AcceptEnv-s cross);
 * - `sudo cmd`: env_reset is on by default and keeps a short allow-list (sudoers(5) "env_reset"), unless -E /
 *   --preserve-env;
 * - `env -i cmd`: starts with an empty environment (env(1));
 * - `su - user` / `su -l` / `su --login`: a login shell resets the environment (su(1)).
 * mpirun, which gives remote ranks only what `-x` names, has its own rule (mpi-rules.ts).
 * Pure: words in, the droppers found out.
 */
export type EnvDropper = { program: string; why: string };

const SHELL = /^(?:\/usr)?(?:\/bin\/)?(?:sh|bash|dash|ash|zsh)$/;

/** The words a container runs: command + args, with an `sh -c SCRIPT` split into the script's words. */
export function commandWords(command: readonly string[], args: readonly string[]): string[] {
  const words = [...command, ...args];
  const i = words.findIndex((w) => SHELL.test(w));
  if (i >= 0 && words[i + 1] === "-c") {
    return [...words.slice(0, i), ...(words[i + 2] ?? "").split(/[\s;&|()]+/).filter(Boolean)];
  }
  return words;
}

const base = (w: string) => w.split("/").at(-1) ?? w;

export function envDroppers(words: readonly string[]): EnvDropper[] {
  const out: EnvDropper[] = [];
  const has = (i: number, ...flags: string[]) =>
    words.slice(i + 1).some((w) => flags.some((f) => w === f || w.startsWith(`${f}=`)));
  words.forEach((w, i) => {
    const p = base(w);
    if (p === "ssh")
      out.push({ program: "ssh", why: "the remote command runs with sshd's environment, not the container's" });
    else if (p === "sudo" && !has(i, "-E", "--preserve-env")) {
      out.push({ program: "sudo", why: "sudo resets the environment (env_reset) and keeps only a short allow-list" });
    } else if (
      p === "env" &&
      (words[i + 1] === "-i" || words[i + 1] === "--ignore-environment" || words[i + 1] === "-")
    ) {
      out.push({ program: "env -i", why: "env -i starts the program with an empty environment" });
    } else if (p === "su" && words.slice(i + 1).some((x) => x === "-" || x === "-l" || x === "--login")) {
      out.push({ program: "su -", why: "a login shell (su -) resets the environment" });
    }
  });
  return out;
}
