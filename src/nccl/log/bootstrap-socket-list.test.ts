/**
 * Which interfaces are devices of the run. NCCL 2.4.2–2.4.7 initialised the socket transport first, for the bootstrap
 * (`// Always initialize sockets as we use it for bootstrap`, then `initNet(&ncclNetSocket)`, then IB: initNet in
 * src/init.cc at v2.4.7-1, src/init.cu at v2.4.2-1, in https://github.com/NVIDIA/nccl), and ncclSocketInit prints
 * `NET/Socket : Using [0]ib0:…` (src/transport/net_socket.cc): every process printed its socket list, then the IB list
 * when IB came up. From v2.4.8-1 the bootstrap has its own `Bootstrap : Using` line (src/bootstrap.cc) and the socket
 * transport is initialised only when no other network comes up. A socket interface is a device of the run only where
 * sockets carried data.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const read = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data;

describe("NCCL 2.4's bootstrap socket list beside the IB list", () => {
  test("`NET/Socket : Using [0]ib1:…` then `NET/IB : Using [0]mlx5_2:1/IB` → IB, device mlx5_2 only", () => {
    const d = read([
      "trn-a:70:90 [0] NCCL INFO NET/Socket : Using [0]ib1:10.77.0.1<0>",
      "trn-a:70:90 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
      "trn-a:70:90 [0] NCCL INFO NET/IB : Using [0]mlx5_2:1/IB ; OOB ib1:10.77.0.1<0>",
      "NCCL version 2.4.7+cuda10.1",
    ]);
    expect(d.network).toBe("IB");
    expect(d.devices.map((x) => x.name)).toEqual(["mlx5_2"]);
  });

  test("a rank whose IB line is not in the paste still ran on IB with the others: its socket list is no device", () => {
    const d = read([
      "trn-a:70:90 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB :",
      "trn-a:73:95 [3] NCCL INFO NET/Socket : Using [0]eno1:10.0.4.2<0> [1]cni0:10.244.1.1<0>",
    ]);
    expect(d.devices.map((x) => x.name)).toEqual(["mlx5_0", "mlx5_1"]);
  });

  test("a socket run keeps its interfaces as devices, and a mixed run keeps both", () => {
    const socket = read([
      "trn-b:5:6 [0] NCCL INFO NET/IB : No device found.",
      "trn-b:5:6 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.9.2<0>",
      "trn-b:5:6 [0] NCCL INFO Using network Socket",
    ]);
    expect(socket.devices.map((x) => x.name)).toEqual(["eth0"]);
    const mixed = read([
      "trn-a:5:6 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.9.1<0>",
      "trn-a:5:6 [0] NCCL INFO Using network IB",
      "trn-b:5:6 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.9.2<0>",
      "trn-b:5:6 [0] NCCL INFO Using network Socket",
    ]);
    expect(mixed.network).toBe("mixed");
    expect(mixed.devices.map((x) => x.name)).toEqual(["eth0", "mlx5_0"]);
  });
});
