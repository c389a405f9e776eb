import type { V1Pod } from "@kubernetes/client-node";

export const FLEET_LABEL = "kube-rdma.io/fleet-run";

export type CollectorPodOptions = {
  node: string;
  namespace: string;
  image: string;
  /** Identifies one `fleet verify` run; every pod it creates carries it as a label. */
  runId: string;
  /** Kills the pod on the node side too, so a lost client never leaves it running. */
  timeoutSeconds: number;
  serviceAccountName?: string | undefined;
};

/** Pod names are DNS-1123 labels of at most 63 characters. */
export function collectorPodName(node: string, runId: string): string {
  const safe = node
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const suffix = `-${runId}`;
  return `kr-collect-${safe}`.slice(0, 63 - suffix.length).replace(/-+$/, "") + suffix;
}

/**
 * A short-lived pod pinned to `node` (spec.nodeName: it runs even where no GPU is free or the node is cordoned)
 * that runs `kube-rdma collect -o - --root /host` with the host's /sys, /proc, /dev/infiniband and /usr/bin
 * read-only under /host, on the host network (so netdevs, routes and the hostname are the node's), tolerating every
 * taint. It requests no GPU: NVIDIA_VISIBLE_DEVICES=all lets nvidia-smi see the GPUs through the NVIDIA container
 * runtime without taking them; the host's ofed_info script is reached through PATH.
 */
export function collectorPod(o: CollectorPodOptions): V1Pod {
  const hostPath = (name: string, path: string, mountPath: string) => ({
    volume: { name, hostPath: { path, type: "Directory" } },
    mount: { name, mountPath, readOnly: true },
  });
  const mounts = [
    hostPath("host-sys", "/sys", "/host/sys"),
    hostPath("host-proc", "/proc", "/host/proc"),
    hostPath("host-dev-infiniband", "/dev/infiniband", "/host/dev/infiniband"),
    // ofed_info is a script on the host: found through PATH (last), so the image's own tools win.
    hostPath("host-usr-bin", "/usr/bin", "/host/usr/bin"),
  ];
  mounts[2]!.volume.hostPath.type = "DirectoryOrCreate";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: collectorPodName(o.node, o.runId),
      namespace: o.namespace,
      labels: {
        "app.kubernetes.io/name": "kube-rdma",
        "app.kubernetes.io/component": "collector",
        [FLEET_LABEL]: o.runId,
      },
      annotations: { "sidecar.istio.io/inject": "false" },
    },
    spec: {
      nodeName: o.node,
      restartPolicy: "Never",
      hostNetwork: true,
      dnsPolicy: "ClusterFirstWithHostNet",
      activeDeadlineSeconds: o.timeoutSeconds,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      ...(o.serviceAccountName ? { serviceAccountName: o.serviceAccountName } : {}),
      tolerations: [{ operator: "Exists" }],
      containers: [
        {
          name: "collect",
          image: o.image,
          imagePullPolicy: "IfNotPresent",
          command: ["kube-rdma", "collect", "-o", "-", "--root", "/host"],
          env: [
            { name: "PATH", value: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/host/usr/bin" },
            { name: "NVIDIA_VISIBLE_DEVICES", value: "all" },
            { name: "NVIDIA_DRIVER_CAPABILITIES", value: "utility" },
            { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
          ],
          resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
          volumeMounts: mounts.map((m) => m.mount),
        },
      ],
      volumes: mounts.map((m) => m.volume),
    },
  };
}
