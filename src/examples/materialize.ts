import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { decodeBytesHex } from "../core/hex-bytes.js";
import { ROOT_CAPTURES, ROOT_FS_SIZES } from "../host/fs-reader.js";
import { isBinaryHostFile } from "../host/paths.js";
import { expandSnapshot } from "../host/snapshot.js";
import { LinkIndex } from "../host/snapshot-reader.js";
import type { Snapshot } from "../host/types.js";

/**
 * Writes a snapshot as a real directory tree under `dir`: files, directories, relative symlinks (as sysfs has) and
 * the command outputs in `<dir>/.kube-rdma/commands.json` (sizes of mounts in `fs-sizes.json`), so that `--root dir` reads what the snapshot holds.
 * Failed reads cannot be stored in a plain tree: an EINVAL attribute becomes a missing file (ENOENT), which every
 * reader here treats the same way (an empty GID slot's attributes are never needed). A name known only from a
 * directory listing (a character device in /dev/infiniband) becomes an empty file.
 */
export function materializeSnapshot(compact: Snapshot, dir: string): void {
  const snapshot = expandSnapshot(compact);
  const at = (p: string) => join(dir, p);
  // Anything recorded below a link lives at the link's target, as in sysfs.
  const links = new LinkIndex(snapshot.links);
  const real = (p: string) => links.resolve(p) ?? p;
  const realParent = (p: string) => join(real(dirname(p)), basename(p));
  for (const d of Object.keys(snapshot.dirs)) {
    if (!Object.hasOwn(snapshot.links, d)) mkdirSync(at(real(d)), { recursive: true });
  }
  const written = new Set<string>();
  for (const [p, content] of Object.entries(snapshot.files)) {
    const r = real(p);
    if (r !== p && Object.hasOwn(snapshot.files, r)) continue;
    if (written.has(r)) continue;
    written.add(r);
    mkdirSync(dirname(at(r)), { recursive: true });
    // Binary files travel as hex text (readBinaryHex): the tree holds their bytes, as sysfs does.
    const bytes = isBinaryHostFile(p) ? decodeBytesHex(content) : null;
    writeFileSync(at(r), bytes ?? content);
  }
  for (const [p, target] of Object.entries(snapshot.links)) {
    const r = realParent(p);
    if (existsSync(at(r)) || isSymlink(at(r))) continue;
    mkdirSync(dirname(at(r)), { recursive: true });
    symlinkSync(relative(dirname(r), target) || ".", at(r));
  }
  // Names only known from a listing (character devices in /dev/infiniband, module directories): empty files.
  for (const [d, names] of Object.entries(snapshot.dirs)) {
    for (const name of names) {
      const p = d === "/" ? `/${name}` : `${d}/${name}`;
      if (known(snapshot, p)) continue;
      const r = real(p);
      if (existsSync(at(r)) || isSymlink(at(r))) continue;
      mkdirSync(dirname(at(r)), { recursive: true });
      writeFileSync(at(r), "");
    }
  }
  mkdirSync(dirname(at(ROOT_CAPTURES)), { recursive: true });
  writeFileSync(at(ROOT_CAPTURES), `${JSON.stringify(snapshot.commands, null, 1)}\n`);
  writeFileSync(at(ROOT_FS_SIZES), `${JSON.stringify(snapshot.fsSizes, null, 1)}\n`);
}

function known(s: Snapshot, p: string): boolean {
  return [s.files, s.dirs, s.links, s.errors].some((t) => Object.hasOwn(t, p));
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
