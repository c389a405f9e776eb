import { UsageError } from "../../cli/spec.js";
import { oneLine } from "../../core/line-safe.js";
import type { KubeTarget } from "./config.js";

const MiB = 2 ** 20;

/** Sizes as people read them: `64 MiB`, `512 KiB`, `100 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** An answer whose body passed its cap: it was cut there and not used. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly capBytes: number,
  ) {
    super(`the answer to ${path} was longer than ${sizeText(capBytes)}; it was cut there and not used`);
    this.name = "ResponseTooLargeError";
  }
}

/** A successful answer that is not what the API server sends: an HTML page, a bare string, not JSON at all. */
export class UnexpectedAnswerError extends Error {
  constructor(
    readonly path: string,
    /** What came instead, in a few words (`an HTML page (text/html)`). */
    readonly found: string,
  ) {
    super(`the answer to ${path} was ${found}, not a Kubernetes object`);
    this.name = "UnexpectedAnswerError";
  }
}

/** What a request was for, so that a refusal can name the exact RBAC rule that is missing. */
export type ApiRequest = { verb: string; resource: string; group?: string; namespace?: string; name?: string };

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT", "ECONNRESET", "EAI_AGAIN"]);

/** The HTTP status of a failed call, or null when the request never got an answer. */
export function statusOf(err: unknown): number | null {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "number") return err.code;
  return null;
}

function networkCode(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === "object" && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
    const errno = (e as { errno?: unknown }).errno;
    if (typeof errno === "string" && NETWORK_CODES.has(errno)) return errno;
    e = (e as { cause?: unknown }).cause;
  }
  const msg = err instanceof Error ? err.message : String(err);
  const m = /\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|EAI_AGAIN)\b/.exec(msg);
  return m ? m[1]! : null;
}

/** What a failed answer said, on one line (a server's message cannot start a line of the error text). */
function statusMessage(err: unknown): string {
  return oneLine(rawStatusMessage(err));
}

function rawStatusMessage(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  if (typeof body === "string") {
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return String(parsed.message).slice(0, 1000);
    } catch {
      return body.slice(0, 300);
    }
  }
  if (typeof body === "object" && body !== null && "message" in body) return String(body.message).slice(0, 1000);
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}

export function describeRequest(r: ApiRequest): string {
  const res = r.group ? `${r.resource}.${r.group}` : r.resource;
  const where = r.namespace ? ` in namespace ${r.namespace}` : "";
  return oneLine(`${r.verb} ${res}${r.name ? ` ${r.name}` : ""}${where}`);
}

/**
 * Turns a failed API call into a clear "could not run" error (exit 2): RBAC refusals name the verb, the resource
 * and the role to apply; an unreachable server names the address and the context.
 */
/** Where each role kube-rdma names is shipped. */
const ROLE_FILES: Record<string, string> = {
  "kube-rdma-cluster-reader": "deploy/cluster/rbac.yaml",
  "kube-rdma-fleet": "deploy/fleet/rbac.yaml",
  "kube-rdma-job-creator": "deploy/job/rbac.yaml",
  "kube-rdma-preflight": "deploy/preflight/rbac.yaml",
  "kube-rdma-bench": "deploy/fleet/bench-rbac.yaml",
};

/**
 * The answer of a call checked before use: the API server answers with JSON objects that carry their `kind`
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/); an HTML page from a proxy, a bare string or an object
 * of another kind is no answer to trust. Returns the answer, or throws a clear exit-2 error naming the request.
 */
export function expectKind<T>(answer: T, kind: string, req: ApiRequest, target: KubeTarget): T {
  const found =
    answer !== null && typeof answer === "object"
      ? (answer as { kind?: unknown }).kind
      : answer === undefined
        ? undefined
        : String(answer).slice(0, 60);
  if (found === kind) return answer;
  const what =
    answer === null || typeof answer !== "object"
      ? `${JSON.stringify(found ?? null)}, not a Kubernetes object`
      : `an object of kind ${JSON.stringify(found ?? null)}`;
  throw notAnObject(what, req, target, kind);
}

const NOT_AN_OBJECT_HINT =
  "Check what answers at that address (`kubectl get --raw /version`): a proxy or login page in front of the API server, or the wrong --context / --kubeconfig.";

/**
 * The clear exit-2 error for an answer that is not the Kubernetes object asked for: `what` came instead (`an HTML page
 * (text/html)`); `kind` is the object expected, when the caller knows it.
 */
export function notAnObject(what: string, req: ApiRequest, target: KubeTarget, kind?: string): UsageError {
  const expected = kind ? `a Kubernetes ${kind}` : "a Kubernetes object";
  return new UsageError(
    `the API server at ${target.server} answered ${describeRequest(req)} with ${what}, where ${expected} was expected: the request may not have taken effect.`,
    NOT_AN_OBJECT_HINT,
  );
}

/** The clear exit-2 error for an answer longer than its cap (http.ts): what was asked, the cap, that it was not used. */
export function tooLarge(err: ResponseTooLargeError, req: ApiRequest, target: KubeTarget): UsageError {
  return new UsageError(
    `the API server at ${target.server} answered ${describeRequest(req)} with more than ${sizeText(err.capBytes)}; the answer was cut there and not used.`,
    "An answer that large is not what the API server sends: check what answers at that address (`kubectl get --raw /version`), a proxy in front of it, or the wrong --context / --kubeconfig.",
  );
}

export function apiFailure(err: unknown, req: ApiRequest, target: KubeTarget, role: string): UsageError {
  if (err instanceof ResponseTooLargeError) return tooLarge(err, req, target);
  if (err instanceof UnexpectedAnswerError) return notAnObject(err.found, req, target);
  const status = statusOf(err);
  if (status === 403) {
    return new UsageError(
      `the API server refused to ${describeRequest(req)} (403 Forbidden: RBAC): ${statusMessage(err)}`,
      `Grant it: apply the role ${role} (kubectl apply -f ${ROLE_FILES[role] ?? "deploy/"}) and bind it to your user or ` +
        `service account, or check with \`kubectl auth can-i ${req.verb} ${req.group ? `${req.resource}.${req.group}` : req.resource}\`.`,
    );
  }
  if (status === 401) {
    return new UsageError(
      `the API server at ${target.server} did not accept the credentials of context "${target.context}" (401 Unauthorized).`,
      "Refresh the credentials (e.g. log in again) and retry; `kubectl get nodes` should work first.",
    );
  }
  const net = networkCode(err);
  if (net || status === null) {
    return new UsageError(
      `cannot reach the Kubernetes API at ${target.server} (context "${target.context}" from ${target.source}): ${net ?? statusMessage(err)}.`,
      "Check that the cluster is up and reachable (`kubectl cluster-info`), or choose another --context / --kubeconfig.",
    );
  }
  return new UsageError(`the API server failed to ${describeRequest(req)} (HTTP ${status}): ${statusMessage(err)}`);
}
