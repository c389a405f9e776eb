import { exitCodeFor } from "../../core/finding.js";
import type { NodeInventory } from "../../inventory/types.js";
import { deriveNcclEnv, type NcclEnvOptions } from "../../nccl/env.js";
import { NCCL_ENV_PROFILES, PROFILE_HELP } from "../../nccl/profiles.js";
import { NCCL_ENV_FORMATS, type NcclEnvFormat, renderNcclEnv } from "../../nccl/render-env.js";
import { parseNcclVersion } from "../../nccl/version.js";
import { NETWORK_OPTIONS, networkOption, profileOption } from "../network-options.js";
import { SOURCE_OPTIONS, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, type Io, num, type OptionValues, str, strs, UsageError } from "../spec.js";

/** Validated options of `nccl-env`; bad values are usage errors (exit 2). */
export function ncclEnvOptions(values: OptionValues): { opts: NcclEnvOptions; format: NcclEnvFormat } {
  const opts: NcclEnvOptions = {};
  const version = str(values, "nccl-version");
  if (version !== undefined) {
    if (!parseNcclVersion(version)) {
      throw new UsageError(`--nccl-version expects X.Y or X.Y.Z (e.g. 2.18 or 2.21.5); got "${version}".`);
    }
    opts.ncclVersion = version;
  }
  const tc = num(values, "traffic-class");
  if (tc !== undefined) {
    if (!Number.isInteger(tc) || tc < 0 || tc > 255) {
      throw new UsageError(
        `--traffic-class expects an integer 0–255 (the IP ToS byte, e.g. 106 = DSCP 26); got ${tc}.`,
      );
    }
    opts.trafficClass = tc;
  }
  const fifo = num(values, "fifo-traffic-class");
  if (fifo !== undefined) {
    if (!Number.isInteger(fifo) || fifo < 0 || fifo > 255) {
      throw new UsageError(
        `--fifo-traffic-class expects an integer 0–255 (the IP ToS byte, e.g. 192 = DSCP 48); got ${fifo}.`,
      );
    }
    opts.fifoTrafficClass = fifo;
  }
  const hcas = strs(values, "hcas");
  if (hcas.length) opts.hcas = hcas;
  opts.network = networkOption(values);
  if (bool(values, "raise-gdr-level")) opts.raiseGdrLevel = true;
  opts.profile = profileOption(values, "profile");
  return { opts, format: (str(values, "output") ?? "text") as NcclEnvFormat };
}

/** Derives, renders and returns the exit code for one inventory. */
export function printNcclEnv(inv: NodeInventory, values: OptionValues, io: Io): number {
  const { opts, format } = ncclEnvOptions(values);
  const result = deriveNcclEnv(inv, opts);
  io.stdout(renderNcclEnv(result, format, `${inv.hostname} (${inv.source})`));
  return exitCodeFor(result.findings, values.strict === true);
}

/** The node model from --root/--snapshot/--example (or the live host): H1's `inventoryFromFlags`. */
export async function loadInventory(values: OptionValues): Promise<NodeInventory> {
  const { inventoryFromFlags } = await import("../source.js");
  return inventoryFromFlags(values);
}

export const command: CommandSpec = {
  name: "nccl-env",
  noArguments: {
    hint: "It derives the variables for this host (or --root DIR, --snapshot FILE, --example NAME); run `kube-rdma nccl-env --help` for the options.",
  },
  summary: "Derive and explain the NCCL variables for this node (NCCL_IB_HCA, GID, socket interface, …)",
  usage: "kube-rdma nccl-env [--root DIR | --snapshot FILE | --example NAME] [-o text|shell|dotenv|json|yaml|k8s]",
  description:
    "Reads the node model and prints the NCCL variables a job on this node should get, each with its reason: " +
    "NCCL_IB_HCA in exact form (=mlx5_1,…) with the active data HCAs only (never the management NIC or a down port), " +
    "NCCL_SOCKET_IFNAME for bootstrap (only with --network host, the node's default-route interface; on the pod " +
    "network, the default, it is left unset or set to --pod-interface, because the pod does not have the node's " +
    "interfaces), the GID selection (NCCL_IB_GID_INDEX when one " +
    "RoCE v2 IPv4 index is shared by all data HCAs; NCCL_IB_ADDR_FAMILY/RANGE otherwise, NCCL ≥ 2.21; nothing on " +
    "InfiniBand), the tuning of --profile (derived, the default, and minimal: none, NCCL's own " +
    "behaviour, each variable left at its default with the reason; roce-ecmp: NCCL_IB_QPS_PER_CONNECTION=4 on RoCE " +
    "for a multi-tier ECMP fabric; reference: the values RDMA training platforms commonly inject), and NCCL_NET_GDR_LEVEL only when asked (--raise-gdr-level).\n\n" +
    "Without --nccl-version the NCCL release is unknown and the variables are chosen to work on every release " +
    "(before 2.21 NCCL used GID index 0, the link-local RoCE v1 GID). -o k8s prints a container `env:` list; " +
    "-o json prints {schemaVersion, env, reasons, findings}. Exit 1 when a finding is an error (e.g. no GID choice works).",
  options: [
    {
      name: "output",
      short: "o",
      type: "string",
      valueName: "FORMAT",
      choices: NCCL_ENV_FORMATS,
      default: "text",
      description: "text (reasons as comments), shell (export lines), dotenv, json, yaml, k8s (container env list)",
    },
    {
      name: "nccl-version",
      type: "string",
      valueName: "X.Y",
      description: "The NCCL the jobs use; from 2.21 NCCL selects the RoCE GID itself",
    },
    {
      name: "traffic-class",
      type: "number",
      valueName: "TC",
      description:
        "Set NCCL_IB_TC (IP ToS byte; DSCP = TC >> 2) to match the lossless queue; without it, derived from the data HCAs' global traffic class or mlnx_qos (DSCP trust, PFC on one priority) when they say it",
    },
    {
      name: "profile",
      type: "string",
      valueName: "NAME",
      choices: NCCL_ENV_PROFILES,
      default: "derived",
      description: `The tuning beside the derived variables: ${PROFILE_HELP}`,
    },
    {
      name: "fifo-traffic-class",
      type: "number",
      valueName: "TC",
      description:
        "Set NCCL_IB_FIFO_TC (NCCL 2.22.3+): the ToS byte of NCCL's short control messages, a high-priority queue of the fabric so data congestion does not delay them",
    },
    {
      name: "raise-gdr-level",
      type: "boolean",
      description:
        "Set NCCL_NET_GDR_LEVEL=PHB for GPUs whose nearest data NIC is behind the host bridge (measure first: NCCL's PXN often does better)",
    },
    {
      name: "hcas",
      type: "strings",
      valueName: "LIST",
      description: "Only these HCAs (comma-separated), e.g. a device-plugin allocation",
    },
    ...NETWORK_OPTIONS,
    ...SOURCE_OPTIONS,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma nccl-env --example a100-8x-roce", "the A100 RoCE example node's variables with their reasons"],
    ["kube-rdma nccl-env --example gid-index-5", "one HCA's GID moved: address family/range selection"],
    ["kube-rdma nccl-env --example ipv6-only", "an IPv6-only RoCE fabric: AF_INET6 and an IPv6 range"],
    ["kube-rdma nccl-env -o k8s", "a container env: list for this host"],
    ["kube-rdma nccl-env --example ib-8x-hdr --profile reference", "the reference platform's values, with their cost"],
    ['eval "$(kube-rdma nccl-env -o shell)"', "export the variables into this shell"],
    ["kube-rdma nccl-env --nccl-version 2.21 --traffic-class 106", "NCCL 2.21 with DSCP 26 traffic"],
  ],
  async run({ values, io }) {
    ncclEnvOptions(values); // usage errors before reading the host
    return printNcclEnv(await loadInventory(values), values, io);
  },
};
