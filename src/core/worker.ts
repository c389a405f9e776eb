import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread on a module next to `base` (pass `import.meta.url`): `name.js` when running the built
 * package, `name.ts` through tsx's loader when running from sources (tests, benches).
 */
export function startModuleWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = base.endsWith(".ts");
  const file = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, base);
  if (!fromSource) return new Worker(file, options);
  return new Worker(
    `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(file.href)}); });`,
    { ...options, eval: true },
  );
}
