/**
 * Gang rendezvous through the Kubernetes API, nothing else: every pod of a job merges its facts into one ConfigMap
 * per job (key `<pod>.json`), waits — on watch events, not a polling sleep — until all N members have published,
 * and compares them.
 *
 * Why one ConfigMap per job: it is the least privilege that works. Annotating one's own pod needs `patch pods`,
 * which RBAC cannot narrow to "your own pod" (any pod of the namespace could be relabelled, and labels steer
 * Services). Per-pod ConfigMaps need `create` and `list` on every ConfigMap of the namespace, which reads every
 * other ConfigMap too. One ConfigMap that `kube-rdma job` creates beside the job lets the pods' role name it:
 * `get`, `patch` and `watch`/`list` restricted by `resourceNames` to that one object (deploy/preflight/rbac.yaml).
 * A JSON merge patch of `data` touches only the pod's own key, so concurrent pods never conflict.
 *
 * Limit: a ConfigMap holds at most 1 MiB, and one pod's facts take about 4 KB (9 HCAs) to 6 KB (18 HCAs) as
 * compact JSON, so one ConfigMap serves gangs of about 150–250 pods.
 */
import { PatchStrategy, setHeaderOptions, type V1ConfigMap } from "@kubernetes/client-node";
import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import type { KubeClients } from "../kube/api/client.js";
import { statusOf } from "../kube/api/errors.js";
import { watchEvents } from "../kube/api/http.js";
import { PREFLIGHT_FINDINGS } from "./catalogue.js";
import { factsDefect } from "./report.js";
import type { Member, PodFacts } from "./types.js";

export const PREFLIGHT_ROLE = "kube-rdma-preflight";
const KEY_SUFFIX = ".json";

/** The ConfigMap a job's pods meet in. */
export function preflightConfigMapName(job: string): string {
  return `${job}-preflight`.slice(0, 253);
}

export type GangOptions = {
  clients: KubeClients;
  namespace: string;
  configMap: string;
  /** This pod's facts (its `pod` field is its key). */
  facts: PodFacts;
  /** Pods in the gang, this one included. */
  members: number;
  timeoutMs: number;
};

export type GangResult =
  | { complete: true; members: Member[] }
  | { complete: false; members: Member[]; finding: Finding };

/** The members a ConfigMap holds; keys that are not valid facts are skipped (a later patch may fix them). */
export function membersInConfigMap(cm: V1ConfigMap | undefined): Member[] {
  const out: Member[] = [];
  for (const [key, text] of Object.entries(cm?.data ?? {})) {
    if (!key.endsWith(KEY_SUFFIX)) continue;
    try {
      const facts = JSON.parse(text) as unknown;
      if (factsDefect(facts) === null) out.push({ name: key.slice(0, -KEY_SUFFIX.length), facts: facts as PodFacts });
    } catch {
      // Not JSON: not a member.
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}

/** Merges this pod's facts into the job's ConfigMap (creating it when it is missing and RBAC allows). */
export async function publishFacts(
  o: Pick<GangOptions, "clients" | "namespace" | "configMap" | "facts">,
): Promise<void> {
  const { clients, namespace, configMap: name, facts } = o;
  const data = { [`${facts.pod}${KEY_SUFFIX}`]: JSON.stringify(facts) };
  // A refused call becomes the clear exit-2 error that names the missing RBAC rule.
  const fail = (verb: string, err: unknown) =>
    clients.call({ verb, resource: "configmaps", namespace, name }, () => Promise.reject(err));
  const patch = () =>
    clients.core.patchNamespacedConfigMap(
      { name, namespace, body: { data } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  try {
    await patch();
    return;
  } catch (err) {
    if (statusOf(err) !== 404) await fail("patch", err);
  }
  try {
    await clients.core.createNamespacedConfigMap({ namespace, body: { metadata: { name, namespace }, data } });
  } catch (err) {
    // Another pod created it first: patch it like everyone else.
    if (statusOf(err) !== 409) await fail("create", err);
    await patch().catch((e: unknown) => fail("patch", e));
  }
}

async function readConfigMap(clients: KubeClients, namespace: string, name: string): Promise<V1ConfigMap> {
  return clients.call({ verb: "get", resource: "configmaps", namespace, name }, () =>
    clients.core.readNamespacedConfigMap({ name, namespace }),
  );
}

/** When a watch cannot be held open (refused, cut), the next read waits this long: never a busy loop. */
export const WATCH_RETRY_MS = 1000;

/**
 * Resolves at the first watch event on the ConfigMap after `resourceVersion`, or after `ms`. A watch that ends
 * without an event (refused by RBAC, cut by a proxy) is followed by a pause of WATCH_RETRY_MS before the caller
 * reads again. However it ends, the watch's request is aborted before this returns: a watch the server holds open
 * (or never answers) cannot keep the process alive past the rendezvous.
 */
async function nextChange(clients: KubeClients, namespace: string, name: string, rv: string, ms: number) {
  const stop = new AbortController();
  let pause: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => stop.abort(), ms);
  try {
    await new Promise<void>((resolve) => {
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
      const ended = () => {
        pause ??= setTimeout(resolve, Math.min(WATCH_RETRY_MS, ms));
      };
      watchEvents(
        clients.target.kc,
        `/api/v1/namespaces/${namespace}/configmaps`,
        { fieldSelector: `metadata.name=${name}`, resourceVersion: rv, allowWatchBookmarks: "false" },
        stop.signal,
        () => resolve(),
      ).then(ended, ended);
    });
  } finally {
    clearTimeout(timer);
    clearTimeout(pause);
    stop.abort();
  }
}

/** Publishes this pod's facts, then waits for all members (or the timeout). */
export async function rendezvous(o: GangOptions): Promise<GangResult> {
  const deadline = Date.now() + o.timeoutMs;
  await publishFacts(o);
  for (;;) {
    const cm = await readConfigMap(o.clients, o.namespace, o.configMap);
    const members = membersInConfigMap(cm);
    if (members.length >= o.members) return { complete: true, members };
    const left = deadline - Date.now();
    if (left <= 0) {
      const finding = makeFinding(PREFLIGHT_FINDINGS, "PREFLIGHT_GANG_INCOMPLETE", o.configMap, {
        expected: o.members,
        published: members.map((m) => m.name),
        timeoutSeconds: Math.round(o.timeoutMs / 100) / 10,
        configMap: o.configMap,
      });
      return { complete: false, members, finding };
    }
    await nextChange(o.clients, o.namespace, o.configMap, cm.metadata?.resourceVersion ?? "0", left);
  }
}
