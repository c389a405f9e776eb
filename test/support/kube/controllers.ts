/**
 * The controllers of the enforcing test cluster (fake-api.ts's Enforce): what creates pods in a real cluster, and
 * the admission those pods meet. The DaemonSet controller creates one pod per node the template may run on
 * (placement.ts), each admitted as the controller's own identity; a pod whose image no registry serves stays
 * Pending in ErrImagePull.
 */
import { admissionDenials, type UserInfo } from "./admission.js";
import { daemonSetNodes } from "./placement.js";

// biome-ignore lint/suspicious/noExplicitAny: API objects are free-form JSON here, as on the wire.
type Obj = Record<string, any>;
type View = { list(plural: string): Obj[] };

/** The DaemonSet controller's identity (its own ServiceAccount, kube-controller-manager --use-service-account-credentials). */
export const DAEMONSET_CONTROLLER: UserInfo = {
  username: "system:serviceaccount:kube-system:daemon-set-controller",
  groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
};

/** A pod whose image no registry serves: Pending, its container waiting in ErrImagePull. */
export function errImagePull(pod: Obj, image: string): Obj {
  const name = pod.spec?.containers?.[0]?.name ?? "main";
  return {
    phase: "Pending",
    containerStatuses: [
      { name, image, ready: false, restartCount: 0, imageID: "", state: { waiting: { reason: "ErrImagePull" } } },
    ],
  };
}

/** Admission of a pod a controller creates, as `as`. */
export function controllerPodDenials(pod: Obj, as: UserInfo, view: View): string[] {
  return admissionDenials(
    {
      operation: "CREATE",
      group: "",
      version: "v1",
      resource: "pods",
      subResource: "",
      namespace: pod.metadata?.namespace ?? null,
      name: pod.metadata?.name ?? "",
      object: { apiVersion: "v1", kind: "Pod", ...pod },
      oldObject: null,
      userInfo: as,
    },
    view,
  );
}

export type ControllerContext = {
  store: Map<string, Obj[]>;
  view: View;
  nextRv: () => string;
  controllerErrors: string[];
  pullable?: ((image: string) => boolean) | undefined;
};

/** The DaemonSet controller: one admitted pod per node the template may run on; the DaemonSet's status. */
export function daemonSetController(ds: Obj, c: ControllerContext): void {
  const nodes = daemonSetNodes(ds, c.store.get("nodes") ?? []);
  let ready = 0;
  for (const n of nodes) {
    const pod: Obj = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${ds.metadata.name}-${n.metadata.name}`,
        namespace: ds.metadata.namespace,
        labels: { ...(ds.spec.template.metadata?.labels ?? {}) },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata.name, uid: ds.metadata.uid }],
      },
      spec: { ...structuredClone(ds.spec.template.spec), nodeName: n.metadata.name },
    };
    const denied = controllerPodDenials(pod, DAEMONSET_CONTROLLER, c.view);
    if (denied.length) {
      c.controllerErrors.push(`DaemonSet ${ds.metadata.namespace}/${ds.metadata.name}: ${denied.join("; ")}`);
      continue;
    }
    pod.metadata.uid = `uid-${pod.metadata.name}-${c.nextRv()}`;
    pod.metadata.resourceVersion = c.nextRv();
    const images = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((x: Obj) => x.image as string);
    const bad = c.pullable ? images.find((i) => !c.pullable!(i)) : undefined;
    pod.status = bad
      ? errImagePull(pod, bad)
      : {
          phase: "Running",
          conditions: [{ type: "Ready", status: "True" }],
          containerStatuses: pod.spec.containers.map((x: Obj) => ({
            name: x.name,
            image: x.image,
            imageID: "",
            ready: true,
            restartCount: 0,
            state: { running: { startedAt: new Date(0).toISOString() } },
          })),
        };
    if (!bad) ready++;
    c.store.get("pods")!.push(pod);
  }
  ds.status = {
    desiredNumberScheduled: nodes.length,
    currentNumberScheduled: nodes.length,
    numberReady: ready,
    numberAvailable: ready,
    updatedNumberScheduled: nodes.length,
    numberMisscheduled: 0,
    observedGeneration: 1,
  };
}
