import type { OptionSpec, OptionValues } from "../../cli/spec.js";
import { num, str, UsageError } from "../../cli/spec.js";
import type { KubeOptions } from "./config.js";

export const KUBECONFIG_OPTIONS: readonly OptionSpec[] = [
  {
    name: "kubeconfig",
    type: "string",
    valueName: "FILE",
    description: "Kubeconfig to use (default: $KUBECONFIG, in-cluster service account, ~/.kube/config)",
  },
  { name: "context", type: "string", valueName: "NAME", description: "Kubeconfig context (default: current context)" },
  {
    name: "request-timeout",
    type: "number",
    valueName: "SECONDS",
    description: "Give up on one Kubernetes API request after this long (default: 60, the API server's own limit)",
  },
];

export const NAMESPACE_OPTION: OptionSpec = {
  name: "namespace",
  short: "n",
  type: "string",
  valueName: "NS",
  description: "Namespace",
};

export function kubeOptionsFrom(values: OptionValues, env: Record<string, string | undefined>): KubeOptions {
  const seconds = num(values, "request-timeout");
  if (seconds !== undefined && !(seconds > 0 && seconds <= 3600)) {
    throw new UsageError(
      `--request-timeout must be a number of seconds above 0 and at most 3600; got ${seconds}.`,
      "Example: --request-timeout 10 (each API request that takes longer is abandoned with a clear error).",
    );
  }
  return {
    kubeconfig: str(values, "kubeconfig"),
    context: str(values, "context"),
    env,
    ...(seconds !== undefined ? { requestTimeoutMs: seconds * 1000 } : {}),
  };
}
