/** Finding the NCCL library and its net plugins in a container image, through the HostReader (pure helpers first). */
import type { HostReader } from "../host/types.js";
import type { NcclLibrary } from "./types.js";

const NCCL_NAME = /^libnccl\.so(?:\.(\d+(?:\.\d+)*))?$/;
const PLUGIN_NAME = /^libnccl-net(?:-[\w.]+?)?\.so(?:\.(\d+(?:\.\d+)*))?$/;
const FULL_VERSION = /^\d+\.\d+\.\d+$/;
/** `NCCL version 2.21.5+cuda12.4`: the banner NCCL builds into the library and prints at init. */
const BANNER = /NCCL version (\d+\.\d+\.\d+)/;
/** The pip wheel's metadata directory: `nvidia_nccl_cu12-2.21.5.dist-info`. */
const DIST_INFO = /^nvidia_nccl_cu\d+-(\d+\.\d+\.\d+)\.dist-info$/;

/** Where images keep libnccl: distro and CUDA paths; LD_LIBRARY_PATH entries come first. */
export const LIBRARY_DIRS = [
  "/usr/lib/x86_64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu",
  "/usr/lib64",
  "/usr/lib",
  "/usr/local/lib",
  "/usr/local/nccl/lib",
  "/usr/local/cuda/lib64",
  "/opt/nccl/lib",
  "/opt/hpcx/nccl_rdma_sharp_plugin/lib",
  "/opt/amazon/aws-ofi-nccl/lib",
] as const;

/** Python roots whose `python3.X/{site,dist}-packages/nvidia/nccl/lib` a pip-installed NCCL lives in. */
const PYTHON_ROOTS = ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"] as const;

/** `2.21.5` from `libnccl.so.2.21.5`; null for `libnccl.so.2` or a name that is not libnccl. */
export function versionOfName(name: string, pattern: RegExp = NCCL_NAME): string | null {
  const v = pattern.exec(name)?.[1];
  return v && FULL_VERSION.test(v) && !/^0\.0\.0$/.test(v) ? v : null;
}

/** The version in NCCL's banner inside the library's bytes, or null. */
export function versionOfLibraryText(text: string): string | null {
  return BANNER.exec(text)?.[1] ?? null;
}

export const isNcclLibraryName = (name: string) => NCCL_NAME.test(name);
export const isNetPluginName = (name: string) => PLUGIN_NAME.test(name);

const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);
const dirOf = (p: string) => p.slice(0, p.lastIndexOf("/")) || "/";

/** The directories searched, in the loader's order: LD_LIBRARY_PATH, then the usual places, then pip's. */
export function searchDirs(reader: HostReader, ldLibraryPath: string | undefined): string[] {
  const dirs = [...(ldLibraryPath ?? "").split(":").filter((d) => d.startsWith("/")), ...LIBRARY_DIRS];
  for (const root of PYTHON_ROOTS) {
    const list = reader.list(root);
    if (!list.ok) continue;
    for (const py of list.value.filter((n) => /^python3(\.\d+)?$/.test(n)).sort()) {
      for (const pkgs of ["site-packages", "dist-packages"]) dirs.push(`${root}/${py}/${pkgs}/nvidia/nccl/lib`);
    }
  }
  dirs.push("/usr/lib/python3/dist-packages/nvidia/nccl/lib");
  return [...new Set(dirs.map((d) => d.replace(/\/+$/, "")))];
}

/** The NCCL version of a pip wheel: its dist-info directory beside the `nvidia/` package. */
function packageVersion(reader: HostReader, libDir: string): string | null {
  const m = /^(.*)\/nvidia\/nccl\/lib$/.exec(libDir);
  if (!m) return null;
  const list = reader.list(m[1]!);
  if (!list.ok) return null;
  for (const n of list.value.sort()) {
    const v = DIST_INFO.exec(n)?.[1];
    if (v) return v;
  }
  return null;
}

function describeLibrary(reader: HostReader, path: string, pattern: RegExp, readText: boolean): NcclLibrary {
  const own = versionOfName(base(path), pattern);
  if (own) return { path, version: own, versionFrom: "file name" };
  const real = reader.realpath(path);
  const target = real.ok ? versionOfName(base(real.value), pattern) : null;
  if (target) return { path, version: target, versionFrom: "link target" };
  const pkg = pattern === NCCL_NAME ? packageVersion(reader, dirOf(path)) : null;
  if (pkg) return { path, version: pkg, versionFrom: "package" };
  if (readText) {
    // One read of the library (tens of MB) only when neither its name nor a package says the version.
    const text = reader.readText(real.ok ? real.value : path);
    const v = text.ok ? versionOfLibraryText(text.value) : null;
    if (v) return { path, version: v, versionFrom: "library text" };
  }
  return { path, version: null, versionFrom: null };
}

/**
 * Every libnccl and libnccl-net* in the search directories. Several names of one file (`libnccl.so.2` →
 * `libnccl.so.2.21.5`) count once, under the name the loader asks for first (`libnccl.so.2`).
 */
export function findNcclLibraries(
  reader: HostReader,
  ldLibraryPath: string | undefined,
): { libraries: NcclLibrary[]; netPlugins: NcclLibrary[] } {
  const libraries: NcclLibrary[] = [];
  const netPlugins: NcclLibrary[] = [];
  const seen = new Set<string>();
  for (const dir of searchDirs(reader, ldLibraryPath)) {
    const list = reader.list(dir);
    if (!list.ok) continue;
    // libnccl.so.2 sorts before libnccl.so.2.21.5: the loader's name is kept, the versioned file is its target.
    for (const name of [...list.value].sort()) {
      const isLib = isNcclLibraryName(name);
      const isPlugin = !isLib && isNetPluginName(name);
      if (!isLib && !isPlugin) continue;
      const path = `${dir}/${name}`;
      const real = reader.realpath(path);
      const key = real.ok ? real.value : path;
      if (seen.has(key)) continue;
      seen.add(key);
      if (isLib) libraries.push(describeLibrary(reader, path, NCCL_NAME, true));
      else netPlugins.push(describeLibrary(reader, path, PLUGIN_NAME, false));
    }
  }
  return { libraries, netPlugins };
}
