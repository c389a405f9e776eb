import type { OptionSpec, OptionValues } from "../../cli/spec.js";
import { str } from "../../cli/spec.js";
import type { KubeOptions } from "./config.js";

export const KUBECONFIG_OPTIONS: readonly OptionSpec[] = [
  {
    name: "kubeconfig",
    type: "string",
    valueName: "FILE",
    description: "Kubeconfig to use (default: $KUBECONFIG, in-cluster service account, ~/.kube/config)",
  },
  { name: "context", type: "string", valueName: "NAME", description: "Kubeconfig context (default: current context)" },
];

export const NAMESPACE_OPTION: OptionSpec = {
  name: "namespace",
  short: "n",
  type: "string",
  valueName: "NS",
  description: "Namespace",
};

export function kubeOptionsFrom(values: OptionValues, env: Record<string, string | undefined>): KubeOptions {
  return { kubeconfig: str(values, "kubeconfig"), context: str(values, "context"), env };
}
