/** What the fake API server (test/support/kube/fake-api.ts) is given and gives back. */
import type { ServerResponse } from "node:http";
import type { UserInfo } from "./admission.js";
import type { Obj } from "./fake-api-wire.js";

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
