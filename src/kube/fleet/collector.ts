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
 * Where the collector finds the host's ofed_info, nvidia-smi and mlnx_qos: the host's /usr/bin, mounted read-only.
 * ethtool, ip and dcb run from the image's own /usr/sbin (src/host/command-path.ts).
 */
export const COLLECTOR_HOST_COMMANDS = "/host/usr/bin";

/**
 * A short-lived pod pinned to `node` (spec.nodeName: it runs even where no GPU is free or the node is cordoned)
 * that runs `kube-rdma collect -o - --root /host` with the host's /sys, /dev/infiniband and /usr/bin read-only
 * under /host, on the host network (so its own /proc shows the node's routes and hostname: no host /proc is
 * mounted), tolerating every taint. Least privilege: every capability dropped, no privilege escalation, the
 * runtime's default seccomp profile, a read-only root filesystem, no API token, and NVIDIA_VISIBLE_DEVICES=void
 * (the NVIDIA runtime hands it no GPU). The host's binaries are never on PATH: the two host commands run by
 * absolute path (`--host-commands /host/usr/bin`). deploy/fleet/admission-policy.yaml admits exactly this shape
 * in the fleet namespace.
 */
export function collectorPod(o: CollectorPodOptions): V1Pod {
  const hostPath = (name: string, path: string, mountPath: string) => ({
    volume: { name, hostPath: { path, type: "Directory" } },
    mount: { name, mountPath, readOnly: true },
  });
  const mounts = [
    hostPath("host-sys", "/sys", "/host/sys"),
    hostPath("host-dev-infiniband", "/dev/infiniband", "/host/dev/infiniband"),
    hostPath("host-usr-bin", "/usr/bin", COLLECTOR_HOST_COMMANDS),
  ];
  mounts[1]!.volume.hostPath.type = "DirectoryOrCreate";
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
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      tolerations: [{ operator: "Exists" }],
      containers: [
        {
          name: "collect",
          image: o.image,
          imagePullPolicy: "IfNotPresent",
          command: [
            "kube-rdma",
            "collect",
            "-o",
            "-",
            "--root",
            "/host",
            "--own-proc",
            "--host-commands",
            COLLECTOR_HOST_COMMANDS,
          ],
          env: [
            { name: "PATH", value: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
            { name: "NVIDIA_VISIBLE_DEVICES", value: "void" },
            { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
          ],
          resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          },
          volumeMounts: mounts.map((m) => m.mount),
        },
      ],
      volumes: mounts.map((m) => m.volume),
    },
  };
}
