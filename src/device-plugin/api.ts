/**
 * The kubelet device-plugin API v1beta1 (tech-spec.md §6): constants, message types and the gRPC service
 * definitions loaded from our api.proto with @grpc/proto-loader (keepCase, so field names are the proto's).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

export const API_VERSION = "v1beta1";
export const DEFAULT_PLUGIN_DIR = "/var/lib/kubelet/device-plugins";
export const KUBELET_SOCKET = "kubelet.sock";
export const HEALTHY = "Healthy";
export const UNHEALTHY = "Unhealthy";
export type Health = typeof HEALTHY | typeof UNHEALTHY;

export type DevicePluginOptions = { pre_start_required: boolean; get_preferred_allocation_available: boolean };
export type RegisterRequest = {
  version: string;
  endpoint: string;
  resource_name: string;
  options: DevicePluginOptions | null;
};
export type NumaNode = { ID: number };
export type TopologyInfo = { nodes: NumaNode[] };
export type Device = { ID: string; health: Health | string; topology: TopologyInfo | null };
export type ListAndWatchResponse = { devices: Device[] };
export type ContainerPreferredAllocationRequest = {
  available_deviceIDs: string[];
  must_include_deviceIDs: string[];
  allocation_size: number;
};
export type PreferredAllocationRequest = { container_requests: ContainerPreferredAllocationRequest[] };
export type PreferredAllocationResponse = { container_responses: { deviceIDs: string[] }[] };
export type ContainerAllocateRequest = { devices_ids: string[] };
export type AllocateRequest = { container_requests: ContainerAllocateRequest[] };
export type Mount = { container_path: string; host_path: string; read_only: boolean };
export type DeviceSpec = { container_path: string; host_path: string; permissions: string };
export type CdiDevice = { name: string };
export type ContainerAllocateResponse = {
  envs: Record<string, string>;
  mounts: Mount[];
  devices: DeviceSpec[];
  annotations: Record<string, string>;
  cdi_devices: CdiDevice[];
};
export type AllocateResponse = { container_responses: ContainerAllocateResponse[] };
export type PreStartContainerRequest = { devices_ids: string[] };

const PROTO_RELATIVE = join("proto", "deviceplugin", "v1beta1", "api.proto");

/**
 * Finds api.proto beside this module (running from src/ with tsx) or, from the compiled dist/device-plugin/, in the
 * package's src/device-plugin/ or top-level proto/ folder (tsc does not copy .proto files).
 */
export function protoPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const pkgRoot = join(here, "..", "..");
  const candidates = [
    join(here, PROTO_RELATIVE),
    join(pkgRoot, "src", "device-plugin", PROTO_RELATIVE),
    join(pkgRoot, PROTO_RELATIVE),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`api.proto not found; looked in ${candidates.join(", ")}`);
  return found;
}

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
};

export type DevicePluginApi = {
  definition: protoLoader.PackageDefinition;
  registrationService: grpc.ServiceDefinition;
  devicePluginService: grpc.ServiceDefinition;
  RegistrationClient: grpc.ServiceClientConstructor;
  DevicePluginClient: grpc.ServiceClientConstructor;
};

let cached: DevicePluginApi | undefined;

/** Loads api.proto once per process. */
export function loadApi(): DevicePluginApi {
  if (cached) return cached;
  const definition = protoLoader.loadSync(protoPath(), LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    v1beta1: { Registration: grpc.ServiceClientConstructor; DevicePlugin: grpc.ServiceClientConstructor };
  };
  cached = {
    definition,
    registrationService: pkg.v1beta1.Registration.service,
    devicePluginService: pkg.v1beta1.DevicePlugin.service,
    RegistrationClient: pkg.v1beta1.Registration,
    DevicePluginClient: pkg.v1beta1.DevicePlugin,
  };
  return cached;
}

/** `unix:///abs/path.sock` — the address form grpc-js takes for unix sockets. */
export function unixAddress(socketPath: string): string {
  return `unix://${socketPath}`;
}
