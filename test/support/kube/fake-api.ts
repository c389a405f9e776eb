/**
 * A local Kubernetes API server for tests: it speaks the real JSON shapes (List kinds with apiVersion and
 * metadata.resourceVersion, Status objects for 403/404/409, text/plain pod logs, discovery documents) so that the
 * real @kubernetes/client-node clients talk to it through a real kubeconfig. Not part of the shipped code.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type AdmissionRequest, admissionDenials, type UserInfo } from "./admission.js";
import { controllerPodDenials, DAEMONSET_CONTROLLER, daemonSetController, errImagePull } from "./controllers.js";
import type { FakeApi, FakeApiOptions } from "./fake-api-types.js";
import { watchHub } from "./fake-api-watch.js";
import {
  body,
  conflicted,
  currentRv,
  discovery,
  json,
  matchesFields,
  matchesLabels,
  mergePatch,
  nextRv,
  type Obj,
  podStatusAfter,
  status,
  strategicPatch,
  TYPES,
} from "./fake-api-wire.js";
import { writeKubeconfig } from "./kubeconfig.js";
import { rbacDenial } from "./rbac.js";

export type { Enforce, FakeApi, FakeApiOptions, InterceptedRequest, PodOutcome } from "./fake-api-types.js";
export type { Obj } from "./fake-api-wire.js";
export { DAEMONSET_CONTROLLER, writeKubeconfig };

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
          resourceVersion: currentRv(),
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

  const { changed, watch } = watchHub();

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
      pod.metadata.resourceVersion = nextRv();
      pod.status = podStatusAfter(pod, outcome);
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
