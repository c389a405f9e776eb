/**
 * A local Kubernetes API server for tests: it speaks the real JSON shapes (List kinds with apiVersion and
 * metadata.resourceVersion, Status objects for 403/404/409, text/plain pod logs, discovery documents) so that the
 * real @kubernetes/client-node clients talk to it through a real kubeconfig. Not part of the shipped code.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AdmissionRequest, admissionDenials, type UserInfo } from "./admission.js";
import { controllerPodDenials, DAEMONSET_CONTROLLER, daemonSetController, errImagePull } from "./controllers.js";
import { rbacDenial } from "./rbac.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
export type Obj = Record<string, any>;

type ResourceType = { group: string; version: string; plural: string; kind: string; namespaced: boolean };

const TYPES: ResourceType[] = [
  { group: "", version: "v1", plural: "nodes", kind: "Node", namespaced: false },
  { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true },
  { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  { group: "", version: "v1", plural: "services", kind: "Service", namespaced: true },
  { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true },
  { group: "", version: "v1", plural: "events", kind: "Event", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role", namespaced: true },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterroles", kind: "ClusterRole", namespaced: false },
  {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicies",
    kind: "ValidatingAdmissionPolicy",
    namespaced: false,
  },
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    plural: "validatingadmissionpolicybindings",
    kind: "ValidatingAdmissionPolicyBinding",
    namespaced: false,
  },
  { group: "rbac.authorization.k8s.io", version: "v1", plural: "rolebindings", kind: "RoleBinding", namespaced: true },
  { group: "apps", version: "v1", plural: "daemonsets", kind: "DaemonSet", namespaced: true },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true },
  { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
  { group: "kubeflow.org", version: "v1", plural: "pytorchjobs", kind: "PyTorchJob", namespaced: true },
  { group: "kubeflow.org", version: "v2beta1", plural: "mpijobs", kind: "MPIJob", namespaced: true },
  { group: "batch.volcano.sh", version: "v1alpha1", plural: "jobs", kind: "Job", namespaced: true },
];

/** What a pod "does" once created: its final phase and what its log holds, after a delay. */
export type PodOutcome = {
  phase: "Succeeded" | "Failed" | "Running" | "Pending";
  log?: string;
  afterMs?: number;
  /** Pod conditions set with the phase (a Pending pod the scheduler refused: PodScheduled=False, Unschedulable). */
  conditions?: Obj[];
  /** Container statuses set with the phase, in place of the default (a container restarted after a failure). */
  containerStatuses?: Obj[];
};

export type FakeApiOptions = {
  /** Requests answered 403 Forbidden (RBAC denial), by verb and plural (`{verb: "list", resource: "nodes"}`). */
  deny?: { verb: string; resource: string }[];
  /** Called for every created pod; decides how the pod ends. */
  onPodCreated?: (pod: Obj) => PodOutcome | undefined;
  user?: string;
  /** Resource types the server does not serve (their CRD is not installed): absent from discovery, 404. */
  unserved?: string[];
  /** Called for every created object that is not a pod; the pods it returns are created too (an operator's work). */
  onObjectCreated?: (plural: string, obj: Obj) => Obj[] | undefined;
  /**
   * Misbehaviour: sees each resource request first and returns true when it answered it itself (a 429 with
   * Retry-After) or means never to finish it (a log body that stalls half way).
   */
  intercept?: (req: InterceptedRequest, res: ServerResponse) => boolean;
  /** Enforce what a real API server does (authentication, RBAC, admission, schemas, controllers): see Enforce. */
  enforce?: Enforce;
};

/**
 * A cluster that refuses what a real one refuses. Each request is made by the user its bearer token names (401
 * otherwise); RBAC from the Roles/ClusterRoles and bindings in the store decides it (403); every write passes the
 * ValidatingAdmissionPolicies in the store (422, as the API server answers a policy denial); custom objects must
 * satisfy `validate` (422). A created DaemonSet gets its pods from the DaemonSet controller on every node its
 * selector, affinity and tolerations allow, each admitted as the controller's identity; pods an operator creates
 * (onObjectCreated) are admitted as `operator`. A pod whose image `pullable` refuses stays Pending in ErrImagePull.
 */
export type Enforce = {
  /** Bearer token → the identity it authenticates. */
  users: Record<string, UserInfo>;
  /** Errors of a created custom object against its CRD schema (empty = valid). */
  validate?: (plural: string, obj: Obj) => string[];
  /** Whether a registry serves this image. */
  pullable?: (image: string) => boolean;
  /** The identity of the operators that turn jobs into pods. */
  operator?: UserInfo;
};

/** A resource request as `intercept` sees it. */
export type InterceptedRequest = {
  method: string;
  namespace: string | null;
  plural: string | undefined;
  name: string | undefined;
  sub: string | undefined;
  /** A watch (`?watch=true`), not a list. */
  watch?: boolean;
  /** The resourceVersion a watch or list asked for, where it gave one. */
  resourceVersion?: string | null;
};

export type FakeApi = {
  url: string;
  /** Objects by plural (`nodes`, `pods`, `daemonsets`, `pytorchjobs`, …). */
  store: Map<string, Obj[]>;
  /** Every request seen, as `VERB path`. */
  requests: string[];
  /** The watch requests among `requests`, with their query (resourceVersion, selector). */
  watches: string[];
  logs: Map<string, string>;
  kubeconfig: string;
  /** What controllers and operators could not create (admission denials of their pods), as `who: why`. */
  controllerErrors: string[];
  /** Requests admission refused, as `METHOD path: why`. */
  refused: string[];
  /** A kubeconfig authenticating with `token` (an Enforce user). */
  kubeconfigFor(token: string): string;
  close(): Promise<void>;
};

export { DAEMONSET_CONTROLLER };

let rv = 1000;
const nextRv = () => String(++rv);

function status(res: ServerResponse, code: number, reason: string, message: string, details: Obj = {}): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      details,
      code,
    }),
  );
}

/**
 * A write whose body carries metadata.resourceVersion succeeds only against that version, as on a real API server
 * (optimistic concurrency:
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions and
 * https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency):
 * otherwise 409 Conflict with the apiserver's "the object has been modified" message. Returns true when it answered.
 */
function conflicted(res: ServerResponse, current: Obj, sent: Obj, resource: string): boolean {
  const want = sent.metadata?.resourceVersion;
  if (want === undefined || want === null || want === "" || want === current.metadata?.resourceVersion) return false;
  const name = current.metadata?.name;
  status(
    res,
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, kind: resource.split(".")[0] },
  );
  return true;
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function matchesLabels(obj: Obj, selector: string | null): boolean {
  if (!selector) return true;
  const labels: Obj = obj.metadata?.labels ?? {};
  return selector.split(",").every((term) => {
    const t = term.trim();
    if (t === "") return true;
    const ne = /^([^!=]+)!=(.*)$/.exec(t);
    if (ne) return labels[ne[1]!] !== ne[2];
    const eq = /^([^=]+)==?(.*)$/.exec(t);
    if (eq) return labels[eq[1]!] === eq[2];
    if (t.startsWith("!")) return !(t.slice(1) in labels);
    return t in labels;
  });
}

function matchesFields(obj: Obj, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [path, value] = term.split("=");
    const actual = (path ?? "").split(".").reduce<unknown>((o, k) => (o as Obj | undefined)?.[k], obj);
    return String(actual ?? "") === value;
  });
}

/**
 * Strategic merge patch, as far as the tests use it: a merge patch in which a list of conditions merges by `type`
 * (the patchMergeKey of NodeStatus.conditions and PodStatus.conditions), so the kubelet's conditions stay.
 */
function strategicPatch(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === "conditions" && Array.isArray(v) && Array.isArray(target[k])) {
      for (const c of v as Obj[]) {
        const i = (target[k] as Obj[]).findIndex((t) => t.type === c.type);
        if (i >= 0) target[k][i] = c;
        else target[k].push(c);
      }
    } else if (v === null) delete target[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof target[k] === "object" && target[k] !== null) {
      strategicPatch(target[k], v as Obj);
    } else target[k] = v;
  }
}

/** RFC 7386 JSON merge patch: objects merge, null deletes, anything else replaces. */
function mergePatch(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else if (typeof v === "object" && !Array.isArray(v) && typeof target[k] === "object" && target[k] !== null) {
      mergePatch(target[k], v as Obj);
    } else target[k] = v;
  }
}

async function body(req: IncomingMessage): Promise<Obj> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Obj;
}

function discovery(group: string, version: string, unserved: string[] = []): Obj {
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: TYPES.filter((t) => t.group === group && t.version === version && !unserved.includes(t.plural)).map(
      (t) => ({
        name: t.plural,
        singularName: t.kind.toLowerCase(),
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      }),
    ),
  };
}

/** Starts the server on 127.0.0.1 with the given objects; writes a kubeconfig (contexts `fake` and `other`). */
export async function startFakeApi(objects: Record<string, Obj[]>, opts: FakeApiOptions = {}): Promise<FakeApi> {
  const store = new Map<string, Obj[]>();
  for (const t of TYPES) store.set(t.plural, []);
  for (const [plural, items] of Object.entries(objects)) store.set(plural, structuredClone(items));
  for (const items of store.values()) {
    for (const o of items) {
      o.metadata ??= {};
      o.metadata.resourceVersion ??= nextRv();
      o.metadata.uid ??= `uid-${o.metadata.name}`;
    }
  }
  const logs = new Map<string, string>();
  const requests: string[] = [];
  const watches: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const user = opts.user ?? "system:serviceaccount:default:kube-rdma";

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => status(res, 500, "InternalError", String(err)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const method = req.method ?? "GET";
    requests.push(`${method} ${url.pathname}`);
    if (url.searchParams.get("watch") === "true") watches.push(`${url.pathname}?${url.searchParams}`);
    const parts = url.pathname.split("/").filter(Boolean);
    let group = "";
    let version: string;
    let rest: string[];
    if (parts[0] === "api") {
      version = parts[1] ?? "v1";
      rest = parts.slice(2);
    } else if (parts[0] === "apis") {
      group = parts[1] ?? "";
      version = parts[2] ?? "";
      rest = parts.slice(3);
    } else {
      return status(res, 404, "NotFound", `the server could not find the requested resource (${url.pathname})`);
    }
    if (rest.length === 0) {
      const d = discovery(group, version, opts.unserved);
      if (group && (d.resources as Obj[]).length === 0) {
        return status(res, 404, "NotFound", "the server could not find the requested resource");
      }
      return json(res, 200, d);
    }
    let namespace: string | null = null;
    if (rest[0] === "namespaces" && rest.length >= 3) {
      namespace = rest[1]!;
      rest = rest.slice(2);
    }
    const [plural, name, sub] = rest;
    const watching = url.searchParams.get("watch") === "true";
    const resourceVersion = url.searchParams.get("resourceVersion");
    if (opts.intercept?.({ method, namespace, plural, name, sub, watch: watching, resourceVersion }, res)) return;
    const type = TYPES.find((t) => t.plural === plural && t.group === group && !opts.unserved?.includes(t.plural));
    if (!type) return status(res, 404, "NotFound", `the server could not find the requested resource`);
    const verb =
      method === "POST"
        ? "create"
        : method === "DELETE"
          ? "delete"
          : method === "PATCH"
            ? "patch"
            : method === "PUT"
              ? "update"
              : name
                ? "get"
                : url.searchParams.get("watch") === "true"
                  ? "watch"
                  : "list";
    const enforce = opts.enforce;
    let who: UserInfo = { username: user, groups: ["system:masters"] };
    if (enforce) {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      const found = enforce.users[token];
      if (!found) return status(res, 401, "Unauthorized", "Unauthorized");
      who = found;
      const fieldName = /(?:^|,)metadata\.name=([^,]+)/.exec(url.searchParams.get("fieldSelector") ?? "")?.[1];
      const why = rbacDenial(
        {
          verb,
          group,
          resource: type.plural,
          subresource: sub ?? "",
          namespace,
          name: name ?? (verb === "list" || verb === "watch" ? (fieldName ?? "") : ""),
          user: who,
        },
        { list: (p) => store.get(p) ?? [] },
      );
      if (why) return status(res, 403, "Forbidden", why, { ...(name ? { name } : {}), group, kind: plural });
    }
    const admit = (operation: AdmissionRequest["operation"], object: Obj | null, oldObject: Obj | null): string[] =>
      enforce
        ? admissionDenials(
            {
              operation,
              group,
              version: type.version,
              resource: type.plural,
              subResource: sub ?? "",
              namespace: type.namespaced ? namespace : null,
              name: (object ?? oldObject)?.metadata?.name ?? name ?? "",
              object: object
                ? { apiVersion: group ? `${group}/${type.version}` : type.version, kind: type.kind, ...object }
                : null,
              oldObject: oldObject
                ? { apiVersion: group ? `${group}/${type.version}` : type.version, kind: type.kind, ...oldObject }
                : null,
              userInfo: who,
            },
            { list: (p) => store.get(p) ?? [] },
          )
        : [];
    const refuse = (denials: string[]) => {
      refused.push(`${method} ${url.pathname}: ${denials.join("; ")}`);
      return status(res, 422, "Invalid", `admission webhook denied the request: ${denials.join("; ")}`, {
        kind: plural,
      });
    };
    const denied = opts.deny?.some((d) => d.verb === verb && d.resource === (sub ? `${plural}/${sub}` : plural));
    if (denied) {
      const scope = namespace ? `in the namespace "${namespace}"` : "at the cluster scope";
      return status(
        res,
        403,
        "Forbidden",
        `${plural}${name ? ` "${name}"` : ""} is forbidden: User "${user}" cannot ${verb} resource "${sub ? `${plural}/${sub}` : plural}" in API group "${group}" ${scope}`,
        { ...(name ? { name } : {}), group, kind: plural },
      );
    }
    const items = store.get(type.plural)!;
    const apiVersion = group ? `${group}/${type.version}` : type.version;
    const inScope = (o: Obj) => !type.namespaced || namespace === null || o.metadata?.namespace === namespace;
    const find = () => items.find((o) => o.metadata?.name === name && inScope(o));
    const notFound = () =>
      status(res, 404, "NotFound", `${type.plural}${group ? `.${group}` : ""} "${name}" not found`, {
        name,
        group,
        kind: type.plural,
      });

    if (method === "GET" && !name && url.searchParams.get("watch") === "true") {
      return watch(type.plural, apiVersion, type.kind, res, {
        namespace,
        labels: url.searchParams.get("labelSelector"),
        fields: url.searchParams.get("fieldSelector"),
        since: Number(url.searchParams.get("resourceVersion") ?? "0"),
      });
    }
    if (method === "GET" && !name) {
      const matching = items
        .filter(inScope)
        .filter((o) => matchesLabels(o, url.searchParams.get("labelSelector")))
        .filter((o) => matchesFields(o, url.searchParams.get("fieldSelector")));
      // Chunked lists as the apiserver serves them: `limit` items, and an opaque `continue` token while more remain
      // (https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks).
      const limit = Number(url.searchParams.get("limit") ?? "0");
      const from = Number(Buffer.from(url.searchParams.get("continue") ?? "", "base64url").toString() || "0");
      const page = limit > 0 ? matching.slice(from, from + limit) : matching.slice(from);
      const more = limit > 0 && from + limit < matching.length;
      return json(res, 200, {
        kind: `${type.kind}List`,
        apiVersion,
        metadata: {
          resourceVersion: String(rv),
          ...(more ? { continue: Buffer.from(String(from + limit)).toString("base64url") } : {}),
        },
        items: page.map(({ apiVersion: _a, kind: _k, ...o }) => o),
      });
    }
    if (method === "GET" && name && sub === "log") {
      const pod = find();
      if (!pod) return notFound();
      const phase = pod.status?.phase;
      if (phase === "Pending") {
        return status(
          res,
          400,
          "BadRequest",
          `container "collect" in pod "${name}" is waiting to start: ContainerCreating`,
        );
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(logs.get(`${pod.metadata.namespace}/${name}`) ?? "");
      return;
    }
    if (method === "GET" && name) {
      const o = find();
      return o ? json(res, 200, { apiVersion, kind: type.kind, ...o }) : notFound();
    }
    if (method === "POST" && !name) {
      const o = await body(req);
      o.metadata ??= {};
      if (type.namespaced) o.metadata.namespace = namespace ?? "default";
      if (items.some((x) => x.metadata?.name === o.metadata.name && inScope(x))) {
        return status(res, 409, "AlreadyExists", `${type.plural} "${o.metadata.name}" already exists`, {
          name: o.metadata.name,
          kind: type.plural,
        });
      }
      const denials = admit("CREATE", o, null);
      if (denials.length) return refuse(denials);
      const invalid =
        group &&
        !["apps", "rbac.authorization.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io"].includes(group)
          ? (enforce?.validate?.(type.plural, { apiVersion, kind: type.kind, ...o }) ?? [])
          : [];
      if (invalid.length) {
        return status(res, 422, "Invalid", `${type.kind} "${o.metadata.name}" is invalid: ${invalid.join("; ")}`);
      }
      o.metadata.uid = `uid-${o.metadata.name}-${nextRv()}`;
      o.metadata.resourceVersion = nextRv();
      o.metadata.creationTimestamp = new Date(0).toISOString();
      if (type.plural === "pods") o.status = { phase: "Pending" };
      items.push(o);
      changed(type.plural, "ADDED", o);
      const unpullable =
        type.plural === "pods" && enforce?.pullable
          ? [...(o.spec?.initContainers ?? []), ...(o.spec?.containers ?? [])]
              .map((c: Obj) => c.image as string)
              .find((i) => !enforce.pullable!(i))
          : undefined;
      if (unpullable) o.status = errImagePull(o, unpullable);
      else if (type.plural === "pods") schedulePod(o);
      else if (type.plural === "daemonsets" && enforce) runDaemonSet(o);
      else {
        for (const pod of opts.onObjectCreated?.(type.plural, o) ?? []) {
          pod.metadata.namespace ??= o.metadata.namespace;
          if (enforce) {
            const denied = podDenials(
              pod,
              enforce.operator ?? { username: "system:serviceaccount:operators:operator" },
            );
            if (denied.length) {
              controllerErrors.push(`${type.kind} ${o.metadata.name}: pod ${pod.metadata.name}: ${denied.join("; ")}`);
              continue;
            }
          }
          pod.metadata.uid = `uid-${pod.metadata.name}-${nextRv()}`;
          pod.metadata.resourceVersion = nextRv();
          pod.status = { phase: "Pending" };
          store.get("pods")!.push(pod);
          const unpulled = enforce?.pullable
            ? [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]
                .map((c: Obj) => c.image as string)
                .find((i) => !enforce.pullable!(i))
            : undefined;
          if (unpulled) pod.status = errImagePull(pod, unpulled);
          else schedulePod(pod);
          changed("pods", "ADDED", pod);
        }
      }
      return json(res, 201, { apiVersion, kind: type.kind, ...o });
    }
    if (method === "PATCH" && name) {
      const o = find();
      if (!o) return notFound();
      const type_ = req.headers["content-type"] ?? "";
      const patch = await body(req);
      if (conflicted(res, o, patch, `${type.plural}${group ? `.${group}` : ""}`)) return;
      const next = structuredClone(o);
      if (type_.startsWith("application/strategic-merge-patch+json")) strategicPatch(next, patch);
      else if (type_.startsWith("application/merge-patch+json")) mergePatch(next, patch);
      else {
        return status(res, 415, "UnsupportedMediaType", `the fake API server only takes merge patches, not ${type_}`);
      }
      const denials = admit("UPDATE", next, o);
      if (denials.length) return refuse(denials);
      for (const k of Object.keys(o)) delete o[k];
      Object.assign(o, next);
      o.metadata.resourceVersion = nextRv();
      changed(type.plural, "MODIFIED", o);
      return json(res, 200, { apiVersion, kind: type.kind, ...o });
    }
    if (method === "PUT" && name) {
      const o = find();
      if (!o) return notFound();
      const next = await body(req);
      if (conflicted(res, o, next, `${type.plural}${group ? `.${group}` : ""}`)) return;
      const denials = admit("UPDATE", next, o);
      if (denials.length) return refuse(denials);
      next.metadata = {
        ...next.metadata,
        uid: o.metadata.uid,
        resourceVersion: nextRv(),
        namespace: o.metadata.namespace,
      };
      items[items.indexOf(o)] = next;
      changed(type.plural, "MODIFIED", next);
      return json(res, 200, { apiVersion, kind: type.kind, ...next });
    }
    if (method === "DELETE" && name) {
      const o = find();
      if (!o) return notFound();
      items.splice(items.indexOf(o), 1);
      o.metadata.resourceVersion = nextRv();
      changed(type.plural, "DELETED", o);
      return json(res, 200, { apiVersion, kind: type.kind, ...o });
    }
    return status(res, 405, "MethodNotAllowed", `${method} is not supported here`);
  }

  /** Every change, for watches that start from an older resourceVersion; and the open watches. */
  const history: { plural: string; type: string; rv: number; object: Obj }[] = [];
  const watchers = new Set<{ plural: string; send: (type: string, o: Obj) => void }>();

  function changed(plural: string, type: string, o: Obj): void {
    const object = structuredClone(o);
    history.push({ plural, type, rv: Number(o.metadata.resourceVersion), object });
    for (const w of watchers) if (w.plural === plural) w.send(type, object);
  }

  function watch(
    plural: string,
    apiVersion: string,
    kind: string,
    res: ServerResponse,
    q: { namespace: string | null; labels: string | null; fields: string | null; since: number },
  ): void {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    const send = (type: string, o: Obj) => {
      if (q.namespace && o.metadata?.namespace !== q.namespace) return;
      if (!matchesLabels(o, q.labels) || !matchesFields(o, q.fields)) return;
      res.write(`${JSON.stringify({ type, object: { apiVersion, kind, ...o } })}\n`);
    };
    for (const h of history) if (h.plural === plural && h.rv > q.since) send(h.type, h.object);
    const w = { plural, send };
    watchers.add(w);
    res.on("close", () => watchers.delete(w));
  }

  const controllerErrors: string[] = [];
  const refused: string[] = [];

  const view = { list: (p: string) => store.get(p) ?? [] };
  const podDenials = (pod: Obj, as: UserInfo) => controllerPodDenials(pod, as, view);
  const runDaemonSet = (ds: Obj) =>
    daemonSetController(ds, { store, view, nextRv, controllerErrors, pullable: opts.enforce?.pullable });

  function schedulePod(pod: Obj): void {
    const outcome = opts.onPodCreated?.(pod);
    if (!outcome) return;
    const t = setTimeout(() => {
      timers.delete(t);
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (outcome.log !== undefined) logs.set(key, outcome.log);
      const exitCode = outcome.phase === "Succeeded" ? 0 : 1;
      pod.metadata.resourceVersion = nextRv();
      pod.status = {
        phase: outcome.phase,
        ...(outcome.conditions ? { conditions: outcome.conditions } : {}),
        ...(outcome.containerStatuses
          ? { containerStatuses: outcome.containerStatuses }
          : outcome.phase === "Succeeded" || outcome.phase === "Failed"
            ? {
                containerStatuses: [
                  {
                    name: pod.spec?.containers?.[0]?.name ?? "main",
                    ready: false,
                    restartCount: 0,
                    image: pod.spec?.containers?.[0]?.image ?? "",
                    imageID: "",
                    state: { terminated: { exitCode, reason: exitCode === 0 ? "Completed" : "Error" } },
                  },
                ],
              }
            : {}),
      };
      // What the kubelet's status update would tell a watch (a pod deleted meanwhile has nothing left to tell).
      if (store.get("pods")?.includes(pod)) changed("pods", "MODIFIED", pod);
    }, outcome.afterMs ?? 5);
    timers.add(t);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const kubeconfig = writeKubeconfig(url);
  return {
    url,
    store,
    requests,
    watches,
    logs,
    kubeconfig,
    controllerErrors,
    refused,
    kubeconfigFor: (token: string) => writeKubeconfig(url, token),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A kubeconfig for `server` with contexts `fake` (current) and `other`; skipTLSVerify allows plain http. */
export function writeKubeconfig(server: string, token = "test-token"): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-kubeconfig-"));
  const file = join(dir, "config");
  writeFileSync(
    file,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: fake",
      "  cluster:",
      `    server: ${server}`,
      "    insecure-skip-tls-verify: true",
      "users:",
      "- name: tester",
      "  user:",
      `    token: ${token}`,
      "contexts:",
      "- name: fake",
      "  context: {cluster: fake, user: tester, namespace: default}",
      "- name: other",
      "  context: {cluster: fake, user: tester}",
      "current-context: fake",
      "",
    ].join("\n"),
  );
  return file;
}
