/**
 * How a container's final environment is assembled from the device plugin's `envs` and the pod spec, so that a
 * value the job sets itself always wins over what the plugin injects.
 *
 * The kubelet (kubernetes/kubernetes `pkg/kubelet/kubelet_pods.go`, `GenerateRunContainerOptions`) starts the run
 * options from `containerManager.GetResources(pod, container)` — which carries the device plugins' Allocate envs
 * (`pkg/kubelet/cm/container_manager_linux.go` `GetResources` appends `devOpts.Envs` from
 * `pkg/kubelet/cm/devicemanager/pod_devices.go` `deviceRunContainerOptions`) — and then *appends* the result of
 * `makeEnvironmentVariables(pod, container, …)`: the container's `envFrom` entries, overridden by its `env:` entries,
 * then the service-link variables not already named. `pkg/kubelet/kuberuntime/kuberuntime_container.go`
 * (`generateContainerConfig`) passes that list in order to the CRI as `Envs`, and the runtimes build the OCI process
 * environment in order, a later entry replacing an earlier one of the same name. So: plugin envs first, the pod's
 * own entries after, the pod's win.
 *
 * One consequence worth knowing: `$(VAR)` references inside a container `env:` value are expanded only against the
 * container's own variables and service variables, never against device-plugin envs — `NCCL_IB_HCA:
 * "$(NCCL_IB_HCA),mlx5_9"` does not see the injected value.
 */

/** One entry of a container's `env:` (or `envFrom`) after the kubelet resolved it to a literal value. */
export type ContainerEnvVar = { name: string; value: string };

/**
 * The environment the container process sees: the plugin's envs, then the container's own entries applied in
 * order (a later entry replaces an earlier one of the same name).
 */
export function mergeContainerEnv(
  pluginEnvs: Readonly<Record<string, string>>,
  containerEnv: readonly ContainerEnvVar[],
): Record<string, string> {
  const merged: Record<string, string> = { ...pluginEnvs };
  for (const { name, value } of containerEnv) merged[name] = value;
  return merged;
}
