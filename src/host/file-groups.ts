/**
 * Files grouped by their directory: `{"/sys/class/infiniband/mlx5_0/ports/1/counters": {"port_rcv_data": "12\n"}}`.
 * A snapshot (version 3) stores its files this way. Keyed by full path, a snapshot's ~850 keys are long, unique
 * strings that JSON.parse must hash and intern one by one, and every read hashed a long path again; grouped, the
 * directory is hashed once and the names (`port_rcv_data`, `vendor`, `7`) are short strings shared by every node.
 * `fleet verify` parses 10,000 of them: grouping halves the parse and makes a read ~10× cheaper.
 */

/** Files keyed by directory, then by name. A root-level file (`/x`) sits under the directory "". */
export type FileGroups = Record<string, Record<string, string>>;

/** `/a/b/c` → `["/a/b", "c"]`; `/x` → `["", "x"]`. */
export function splitDirName(path: string): [dir: string, name: string] {
  const slash = path.lastIndexOf("/");
  return [path.slice(0, slash), path.slice(slash + 1)];
}

/** Groups `files` (keyed by path) by directory, adding to `into` when given. Pure unless `into` is passed. */
export function groupFiles(files: Readonly<Record<string, string>>, into: FileGroups = {}): FileGroups {
  for (const path in files) {
    if (!Object.hasOwn(files, path)) continue;
    const [dir, name] = splitDirName(path);
    // No prototype: a file named `__proto__` is then a plain entry like any other.
    if (!Object.hasOwn(into, dir)) into[dir] = Object.create(null) as Record<string, string>;
    into[dir]![name] = files[path]!;
  }
  return into;
}

/** Every grouped file keyed by its path again (the inverse of groupFiles), merged over `files`. Pure. */
export function ungroupFiles(
  files: Readonly<Record<string, string>>,
  groups: FileGroups | undefined,
): Record<string, string> {
  const out: Record<string, string> = { ...files };
  for (const [dir, group] of Object.entries(groups ?? {})) {
    for (const [name, text] of Object.entries(group)) out[`${dir}/${name}`] ??= text;
  }
  return out;
}

/** The text of `name` in a group, or undefined (also for Object.prototype members and non-string values). */
export function textIn(group: Record<string, string> | undefined, name: string): string | undefined {
  const v = group?.[name];
  if (typeof v === "string") return v;
  // A parsed group holds a file named `__proto__` as an own entry that plain indexing does not reach.
  if (name !== "__proto__" || group === undefined || !Object.hasOwn(group, name)) return undefined;
  const own = Object.getOwnPropertyDescriptor(group, name)?.value as unknown;
  return typeof own === "string" ? own : undefined;
}
