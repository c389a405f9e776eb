import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  type KubernetesObject,
  KubernetesObjectApi,
} from "@kubernetes/client-node";
import { UsageError } from "../../cli/spec.js";
import type { KubeTarget } from "./config.js";
import { type ApiRequest, apiFailure, expectKind, statusOf } from "./errors.js";
import { withRetry } from "./retry.js";

/** The typed clients kube-rdma uses, plus one helper that turns failures into clear exit-2 errors. */
export type KubeClients = {
  target: KubeTarget;
  core: CoreV1Api;
  apps: AppsV1Api;
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

export function makeClients(target: KubeTarget, role: string): KubeClients {
  const { kc } = target;
  return {
    target,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    ext: kc.makeApiClient(ApiextensionsV1Api),
    objects: KubernetesObjectApi.makeApiClient(kc),
    async call(req, fn) {
      try {
        // 429 Too Many Requests (API priority and fairness) is waited out as Retry-After says, within bounds.
        return await withRetry(fn);
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw apiFailure(err, req, target, role);
      }
    },
    async callFor(req, kind, fn) {
      return expectKind(await this.call(req, fn), kind, req, target);
    },
  };
}

/** Server-side create of generated objects, in order; stops at the first refusal with a clear error. */
export async function createObjects(clients: KubeClients, objects: readonly KubernetesObject[]): Promise<string[]> {
  const created: string[] = [];
  for (const o of objects) {
    const kind = o.kind ?? "object";
    const [group] = (o.apiVersion ?? "").includes("/") ? (o.apiVersion ?? "").split("/") : [""];
    const res = await clients.call(
      {
        verb: "create",
        resource: `${kind.toLowerCase()}s`,
        ...(group ? { group } : {}),
        ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
        ...(o.metadata?.name ? { name: o.metadata.name } : {}),
      },
      async () => {
        try {
          return await clients.objects.create(o);
        } catch (err) {
          // Discovery answers 404 (or client-node does not know the kind) when the CRD is not installed.
          if (statusOf(err) === 404 || /Unrecognized API version and kind/.test(String(err))) {
            throw new UsageError(
              `the cluster does not serve ${o.apiVersion} ${kind}: its CRD is not installed.`,
              "Run `kube-rdma cluster` to see which components (training operator, Volcano) are missing.",
            );
          }
          throw err;
        }
      },
    );
    created.push(`${kind}/${res.metadata?.name ?? o.metadata?.name ?? "?"}`);
  }
  return created;
}
