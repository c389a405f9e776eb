import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { UsageError } from "../../cli/spec.js";

export type KubeOptions = {
  /** `--kubeconfig FILE`; else $KUBECONFIG, else in-cluster config, else ~/.kube/config. */
  kubeconfig?: string | undefined;
  /** `--context NAME`; else the kubeconfig's current context. */
  context?: string | undefined;
  env?: Record<string, string | undefined>;
  /** `--request-timeout SECONDS`, in ms: the deadline of each API request (default: client.ts REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number | undefined;
};

/** Where the configuration came from, for messages and reports. */
export type KubeTarget = {
  kc: KubeConfig;
  context: string;
  server: string;
  source: string;
  /** The deadline of each request, when the command line set one. */
  requestTimeoutMs?: number | undefined;
};

/**
 * Loads a kubeconfig the way kubectl does (flag, $KUBECONFIG, in-cluster service account, ~/.kube/config) and
 * selects the context. A missing file or context is a usage error (exit 2) naming what exists.
 */
export function loadKubeConfig(opts: KubeOptions): KubeTarget {
  const env = opts.env ?? process.env;
  const kc = new KubeConfig();
  let source: string;
  const file = opts.kubeconfig ?? env.KUBECONFIG?.split(":").find((f) => f !== "");
  if (file) {
    if (!existsSync(file)) {
      throw new UsageError(
        `the kubeconfig ${file} does not exist.`,
        "Pass --kubeconfig FILE pointing at a kubeconfig, or run inside a pod with a service account.",
      );
    }
    loadKubeconfigFile(kc, file);
    source = file;
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
    source = "in-cluster service account";
  } else {
    const home = join(env.HOME ?? homedir(), ".kube", "config");
    if (!existsSync(home)) {
      throw new UsageError(
        "no kubeconfig found: neither --kubeconfig, $KUBECONFIG, an in-cluster service account nor ~/.kube/config.",
        "Pass --kubeconfig FILE (and --context NAME) for the cluster to check.",
      );
    }
    loadKubeconfigFile(kc, home);
    source = home;
  }
  if (opts.context) {
    const names = kc.getContexts().map((c) => c.name);
    if (!names.includes(opts.context)) {
      throw new UsageError(
        `the kubeconfig ${source} has no context "${opts.context}"; it has ${names.length ? names.map((n) => `"${n}"`).join(", ") : "none"}.`,
        "Run `kubectl config get-contexts` to list them, then pass --context NAME.",
      );
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster && !kc.getCurrentContext()) {
    const names = kc.getContexts().map((c) => `"${c.name}"`);
    throw new UsageError(
      `the kubeconfig ${source} has no current context${names.length ? ` (its contexts: ${names.join(", ")})` : " and no contexts: it is not a kubeconfig"}.`,
      names.length
        ? "Pass --context NAME, or set one with `kubectl config use-context NAME`."
        : "A kubeconfig is YAML with clusters, users and contexts (`kubectl config view --raw` prints one); pass --kubeconfig FILE.",
    );
  }
  if (!cluster) {
    throw new UsageError(
      `the kubeconfig ${source} names no cluster for context "${kc.getCurrentContext()}".`,
      "Run `kubectl config get-contexts` and pass --context NAME for a context with a cluster.",
    );
  }
  return {
    kc,
    context: kc.getCurrentContext(),
    server: cluster.server,
    source,
    ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  };
}

/**
 * Reads a kubeconfig file; an empty file, YAML that is not a mapping, or a file the client cannot parse is a usage
 * error saying what a kubeconfig holds (the client itself answers an empty file with a TypeError about `clusters`).
 */
function loadKubeconfigFile(kc: KubeConfig, file: string): void {
  const hint =
    "A kubeconfig is YAML with clusters, users and contexts (`kubectl config view --raw` prints one); pass --kubeconfig FILE.";
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`the kubeconfig ${file} could not be read: ${errorText(err)}.`, hint);
  }
  if (text.trim() === "") throw new UsageError(`the kubeconfig ${file} is empty.`, hint);
  if (text.includes("\u0000")) throw new UsageError(`the kubeconfig ${file} is binary data, not YAML.`, hint);
  try {
    kc.loadFromString(text);
  } catch (err) {
    const why = err instanceof TypeError ? "it is not a kubeconfig (no clusters, users and contexts)" : errorText(err);
    throw new UsageError(`the kubeconfig ${file} could not be read: ${why.split("\n")[0]}.`, hint);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
