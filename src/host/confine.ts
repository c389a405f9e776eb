/**
 * Paths under a `--root` tree resolved the way the kernel would resolve them if the tree were `/` (a chroot): a
 * link's absolute target starts again at the root, `..` stops at the root, and more than 40 links in one walk is
 * ELOOP. Nothing a tree holds can send a read outside it: `proc -> /proc` is the tree's own `proc`, and
 * `state -> ../../../../../../etc/shadow` is the tree's `/etc/shadow`.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { readError } from "./errors.js";
import type { ReadOutcome } from "./types.js";

/** The kernel's limit on links followed in one path walk (MAXSYMLINKS). */
export const MAX_LINKS = 40;

/**
 * The host path `path` names inside `root` (a real directory without links in it), every link followed, the last
 * component's too; a missing last component is kept as named. Errors as the kernel gives them: ENOENT, ENOTDIR, ELOOP.
 * `dirs`, when given, holds paths (inside the root, as walked) already seen to be directories and not links: they are
 * not looked at again, and each directory this walk passes through is added.
 */
export function resolveInRoot(root: string, path: string, dirs?: Set<string>): ReadOutcome<string> {
  const done: string[] = [];
  // Components still to walk, the next one last (a link's target is pushed in front of what follows it).
  const todo = path.split("/").reverse();
  let links = 0;
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      done.pop();
      continue;
    }
    const last = todo.every((n) => n === "" || n === ".");
    const candidate = `/${done.length ? `${done.join("/")}/` : ""}${name}`;
    if (!last && dirs?.has(candidate)) {
      done.push(name);
      continue;
    }
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(root + candidate, { throwIfNoEntry: false });
    } catch (err) {
      // A directory this user may not search (EACCES) is a read error of this path, not an abort of the whole run.
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, error: readError(code === "EACCES" || code === "EPERM" ? "EACCES" : "EIO", path) };
    }
    if (st === undefined) {
      if (last) {
        done.push(name);
        break;
      }
      return { ok: false, error: readError("ENOENT", path) };
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) return { ok: false, error: readError("ELOOP", path) };
      let target: string;
      try {
        target = readlinkSync(root + candidate);
      } catch {
        return { ok: false, error: readError("EIO", path) };
      }
      if (target.startsWith("/")) done.length = 0;
      todo.push(...target.split("/").reverse());
      continue;
    }
    if (!last && !st.isDirectory()) return { ok: false, error: readError("ENOTDIR", path) };
    if (!last) dirs?.add(candidate);
    done.push(name);
  }
  return { ok: true, value: `/${done.join("/")}` };
}
