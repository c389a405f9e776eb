import {
  ApiextensionsV1Api,
  AppsV1Api,
  type Configuration,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
} from "@kubernetes/client-node";
import { UsageError } from "../../cli/spec.js";
import type { KubeTarget } from "./config.js";
import {
  type ApiRequest,
  apiFailure,
  describeRequest,
  expectKind,
  notAnObject,
  statusOf,
  UnexpectedAnswerError,
} from "./errors.js";
import { boundedHttpLibrary } from "./http.js";
import { type BodyCaps, DEFAULT_CAPS } from "./limits.js";
import { withRetry } from "./retry.js";

/** The typed clients kube-rdma uses, plus one helper that turns failures into clear exit-2 errors. */
export type KubeClients = {
  target: KubeTarget;
  core: CoreV1Api;
  apps: AppsV1Api;
  /** Leases (the node agent's taint slots). */
  coordination: CoordinationV1Api;
  ext: ApiextensionsV1Api;
  objects: KubernetesObjectApi;
  /**
   * Runs one call, retrying after 429 as Retry-After says (bounded: retry.ts); an RBAC refusal / unreachable server
   * becomes a UsageError naming `req` and `role`.
   */
  call<T>(req: ApiRequest, fn: () => Promise<T>): Promise<T>;
  /** `call`, whose answer must be a Kubernetes object of `kind` (else a clear exit-2 error). */
  callFor<T>(req: ApiRequest, kind: string, fn: () => Promise<T>): Promise<T>;
};

/**
 * How long one request may take, its answer's body included, unless the caller ties it to a signal of its own (a
 * stalled API server or proxy otherwise holds a command, and its process, for ever). The API server's own default
 * for a request is 60 s (kube-apiserver --request-timeout); a healthy one answers a get or patch in milliseconds.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * A typed API client whose every request carries a deadline and goes through the one HTTP layer (http.ts: capped
 * bodies, answers checked before use): kubeConfig.makeApiClient, plus that middleware and library.
 */
function apiClient<T>(
  kc: KubeConfig,
  Api: new (config: Configuration) => T,
  timeoutMs: number,
  caps: BodyCaps,
  signal: AbortSignal | undefined,
): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new UsageError("the kubeconfig names no current cluster.", "Choose one with --context.");
  const deadline = {
    pre: async (ctx: RequestContext) => {
      // A caller's own signal (fleet's run deadline, an interrupt) comes after this and takes over; the clients'
      // own signal (a command's Ctrl-C) aborts every request as well as the deadline does.
      const deadline = AbortSignal.timeout(timeoutMs);
      ctx.setSignal(signal ? AbortSignal.any([deadline, signal]) : deadline);
      return ctx;
    },
    post: async (res: ResponseContext) => res,
  };
  return new Api(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      promiseMiddleware: [deadline],
      httpApi: boundedHttpLibrary(caps),
    }),
  );
}

/** The objects client, made like the typed ones (KubernetesObjectApi.makeApiClient would bypass the HTTP layer). */
class ObjectsApi extends KubernetesObjectApi {
  /** As makeApiClient does: objects without a namespace go to the context's. */
  useNamespaceOf(kc: KubeConfig): void {
    this.setDefaultNamespace(kc);
  }
}

/**
 * A request cut by its deadline: an abort (node-fetch's AbortError names no reason) that came once the deadline had
 * passed since the call began. An abort before that is the caller's own (an interrupt), not a stalled server.
 */
function timedOut(err: unknown, startedAt: number, timeoutMs: number): boolean {
  const e = err as { name?: unknown; type?: unknown } | null;
  const aborted = e?.name === "AbortError" || e?.name === "TimeoutError" || e?.type === "aborted";
  return aborted && Date.now() - startedAt >= timeoutMs;
}

export type ClientOptions = {
  /** The deadline of each request (default REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** The caps on answers' bodies (default: http.ts's MAX_RESPONSE_BYTES and MAX_LOG_RESPONSE_BYTES). */
  caps?: BodyCaps;
  /** Aborts every request of these clients (a command's SIGINT/SIGTERM). */
  signal?: AbortSignal;
};

export function makeClients(target: KubeTarget, role: string, opts: ClientOptions = {}): KubeClients {
  const { kc } = target;
  // The caller's own bound, else the command line's --request-timeout, else the API server's default.
  const timeoutMs = opts.requestTimeoutMs ?? target.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const caps = opts.caps ?? DEFAULT_CAPS;
  const signal = opts.signal;
  const objects = apiClient(kc, ObjectsApi, timeoutMs, caps, signal);
  objects.useNamespaceOf(kc);
  /** One call: retried after 429, its failures made clear exit-2 errors (`kind`: the object the answer must be). */
  const run = async <T>(req: ApiRequest, fn: () => Promise<T>, kind?: string): Promise<T> => {
    const startedAt = Date.now();
    try {
      // 429 Too Many Requests (API priority and fairness) is waited out as Retry-After says, within bounds.
      return await withRetry(fn);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      if (err instanceof UnexpectedAnswerError) throw notAnObject(err.found, req, target, kind);
      if (timedOut(err, startedAt, timeoutMs)) {
        throw new UsageError(
          `the API server at ${target.server} did not answer ${describeRequest(req)} within ${timeoutMs / 1000} s; the request was abandoned.`,
          "Check that the API server (or the proxy in front of it) answers: `kubectl get --raw /readyz`; then rerun.",
        );
      }
      throw apiFailure(err, req, target, role);
    }
  };
  return {
    target,
    core: apiClient(kc, CoreV1Api, timeoutMs, caps, signal),
    apps: apiClient(kc, AppsV1Api, timeoutMs, caps, signal),
    coordination: apiClient(kc, CoordinationV1Api, timeoutMs, caps, signal),
    ext: apiClient(kc, ApiextensionsV1Api, timeoutMs, caps, signal),
    objects,
    call: (req, fn) => run(req, fn),
    async callFor(req, kind, fn) {
      return expectKind(await run(req, fn, kind), kind, req, target);
    },
  };
}

/** What `applyObjects` did to one object: `Kind/name` and its namespace (and the object, for a rollback). */
export type Applied = {
  action: "created" | "updated";
  ref: string;
  namespace: string | undefined;
  object?: KubernetesObject;
};

const where = (d: Pick<Applied, "ref" | "namespace">) => `${d.ref}${d.namespace ? ` in namespace ${d.namespace}` : ""}`;

/** What `applyObjects` is told besides the objects. */
export type ApplyOptions = {
  /** An interrupt: the request in flight is aborted, then what was created is rolled back. */
  signal?: AbortSignal;
  /** Clients for the rollback (the interrupted ones abort every request): same target, no signal. */
  cleanup?: KubeClients;
};

/**
 * Create-or-update of generated objects, in order: a create answered 409 AlreadyExists reads the object and
 * replaces it (a PUT must carry the current resourceVersion), so a second run succeeds. A failure part way, or an
 * interrupt, rolls back: what this run created is deleted again, newest first (what it updated existed before and
 * stays); the error names what was deleted, what was updated, anything that could not be deleted, and the object
 * whose request was in flight at an interrupt, so nothing is left unnamed.
 */
export async function applyObjects(
  clients: KubeClients,
  objects: readonly KubernetesObject[],
  o: ApplyOptions = {},
): Promise<Applied[]> {
  const done: Applied[] = [];
  /** The object whose requests are under way (at an interrupt, they may or may not have taken effect). */
  let sending: KubernetesObject | undefined;
  try {
    for (const obj of objects) {
      if (o.signal?.aborted) throw new UsageError("interrupted.");
      sending = obj;
      done.push(await applyObject(clients, obj));
      sending = undefined;
    }
  } catch (err) {
    const interrupted = o.signal?.aborted === true;
    if (done.length === 0 && !interrupted) throw err;
    const rollback = await rollBack(o.cleanup ?? clients, done.filter((d) => d.action === "created").reverse());
    const pending = sending;
    const inFlight =
      interrupted && pending
        ? `The request for ${where({ ref: `${pending.kind}/${pending.metadata?.name ?? "?"}`, namespace: pending.metadata?.namespace })} was in flight: it may have taken effect (kubectl get it to see).`
        : "";
    const what = interrupted
      ? "interrupted before every object was applied."
      : err instanceof Error
        ? err.message
        : String(err);
    const updated = done.filter((d) => d.action === "updated").map(where);
    const lines = [
      what,
      rollback.deleted.length ? `Rolled back: deleted ${rollback.deleted.join(", ")}, which this run had created.` : "",
      updated.length
        ? `Updated by this run before the failure (they existed before and stay): ${updated.join(", ")}.`
        : "",
      rollback.left.length ? `Could not be rolled back, left in place: ${rollback.left.join("; ")}.` : "",
      inFlight,
    ];
    throw new UsageError(lines.filter(Boolean), [
      ...(!interrupted && err instanceof UsageError ? err.hintLines : []),
      rollback.left.length
        ? "Delete what was left (kubectl delete -n NAMESPACE KIND NAME), or fix the cause and rerun: --apply updates objects that already exist."
        : "Fix the cause and rerun: --apply creates what is missing and updates what exists.",
    ]);
  }
  return done;
}

/** Deletes what a failed apply created (404: already gone). Returns what was deleted and what was left, with why. */
async function rollBack(
  clients: KubeClients,
  created: readonly Applied[],
): Promise<{ deleted: string[]; left: string[] }> {
  const deleted: string[] = [];
  const left: string[] = [];
  for (const d of created) {
    if (!d.object) {
      left.push(`${where(d)} (not known well enough to delete)`);
      continue;
    }
    try {
      // Background: the job's pods, if its operator made any, go with it.
      await clients.objects.delete(d.object, undefined, undefined, undefined, undefined, "Background");
      deleted.push(where(d));
    } catch (err) {
      if (statusOf(err) === 404) deleted.push(where(d));
      else left.push(`${where(d)} (${rollbackWhy(err)})`);
    }
  }
  return { deleted, left };
}

function rollbackWhy(err: unknown): string {
  const status = statusOf(err);
  const first = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 160);
  return status !== null ? `HTTP ${status}` : first;
}

async function applyObject(clients: KubeClients, o: KubernetesObject): Promise<Applied> {
  const kind = o.kind ?? "object";
  const [group] = (o.apiVersion ?? "").includes("/") ? (o.apiVersion ?? "").split("/") : [""];
  const namespace = o.metadata?.namespace;
  const req = (verb: string): ApiRequest => ({
    verb,
    resource: `${kind.toLowerCase()}s`,
    ...(group ? { group } : {}),
    ...(namespace ? { namespace } : {}),
    ...(o.metadata?.name ? { name: o.metadata.name } : {}),
  });
  const res = await clients.call(req("create"), async () => {
    try {
      return await clients.objects.create(o);
    } catch (err) {
      // 409 AlreadyExists: https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions
      if (statusOf(err) === 409) return null;
      // Discovery answers 404 (or client-node does not know the kind) when the CRD is not installed.
      if (statusOf(err) === 404 || /Unrecognized API version and kind/.test(String(err))) {
        throw new UsageError(
          `the cluster does not serve ${o.apiVersion} ${kind}: its CRD is not installed.`,
          "Run `kube-rdma cluster` to see which components (training operator, Volcano) are missing.",
        );
      }
      throw err;
    }
  });
  const ref = (r: KubernetesObject | null) => `${kind}/${r?.metadata?.name ?? o.metadata?.name ?? "?"}`;
  const identity: KubernetesObject = {
    apiVersion: o.apiVersion ?? "",
    kind,
    metadata: { name: res?.metadata?.name ?? o.metadata?.name ?? "", ...(namespace ? { namespace } : {}) },
  };
  if (res) return { action: "created", ref: ref(res), namespace, object: identity };
  const current = await clients.call(req("get"), () =>
    clients.objects.read({
      apiVersion: o.apiVersion ?? "",
      kind,
      metadata: { name: o.metadata?.name ?? "", ...(namespace ? { namespace } : {}) },
    }),
  );
  const resourceVersion = current.metadata?.resourceVersion;
  const replaced = await clients.call(req("update"), () =>
    clients.objects.replace({ ...o, metadata: { ...o.metadata, ...(resourceVersion ? { resourceVersion } : {}) } }),
  );
  return { action: "updated", ref: ref(replaced), namespace, object: identity };
}
