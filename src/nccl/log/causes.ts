import type { Severity } from "../../core/finding.js";

/** A known NCCL WARN (or error/INFO line that explains a failure): what it means and what to do (tech-spec §4.3). */
export type LogCause = {
  /** Stable id; the finding code is `NCCL_WARN_<id>`. */
  id: string;
  severity: Severity;
  test: RegExp;
  cause: string;
  fix: string;
  /**
   * A WARN that repeats an earlier failure from another layer (the proxy thread, the test harness, a flushed queue):
   * not a fault of its own when another warning names the cause.
   */
  followOn?: true;
  /** `test` reads the whole line (its `file.cc:123` source location), not only the message after `NCCL WARN`. */
  inLine?: true;
  /**
   * NCCL prints it on the way out of communicator init, returning an error from ncclCommInitRank (an invalid rank, a
   * duplicate GPU, a bootstrap root refusing a rank, a topology it cannot build): where no communicator completed, the
   * init failed, whatever network was chosen.
   */
  endsInit?: true;
  /**
   * The RDMA transport's absence (no device, no libibverbs, IB turned off): NCCL goes on to sockets (net.cc tries each
   * network in turn), so an error for the job's RDMA is not the end of its init.
   */
  fallsBack?: true;
  /**
   * Raised only by a transfer a collective posted (a receive that got another size than it posted): the communicator
   * had been built and was running, whatever error followed.
   */
  ran?: true;
};

export const LOG_CAUSES: readonly LogCause[] = [
  {
    id: "NO_IB_DEVICE",
    fallsBack: true,
    severity: "error",
    test: /NET\/IB ?: No device found/,
    cause:
      "NCCL found no active IB/RoCE port it may use: /dev/infiniband not in the container, NCCL_IB_HCA naming no active port, or libibverbs missing",
    fix: "Give the pod the RDMA resource and IPC_LOCK, check `ibv_devinfo` inside it, and set NCCL_IB_HCA from `kube-rdma nccl-env`.",
  },
  // net_ib.cc: `INFO(NCCL_INIT|NCCL_NET, "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (%s)", …)` when neither
  // nvidia_peermem nor DMA-BUF can serve the HCA (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc).
  {
    id: "GDR_DISABLED_FOR_HCA",
    severity: "warning",
    test: /GPU Direct RDMA Disabled for HCA/,
    cause:
      "NCCL turned GPUDirect RDMA off for this HCA (the reason NCCL gives is in the line: no peer-memory module, DMA-BUF not supported, or the GPU too far from the NIC): its traffic is staged through host memory",
    fix: "On the node: `kube-rdma verify` names the GPUDirect path (nvidia_peermem, DMA-BUF or none) and each GPU's distance to its NIC; load nvidia_peermem or use the open GPU kernel module for DMA-BUF.",
  },
  // param.cc prints "NCCL_IB_DISABLE set by environment to 1": RDMA is off by choice, TCP sockets carry everything.
  {
    id: "IB_DISABLED_BY_ENV",
    fallsBack: true,
    severity: "warning",
    test: /NCCL_IB_DISABLE set by environment to 1/,
    cause: "NCCL_IB_DISABLE=1 is set in the environment: RDMA is turned off by choice and NCCL runs over TCP sockets",
    fix: "Remove NCCL_IB_DISABLE=1 from the job (kube-rdma lint flags it in manifests), or set it to 0.",
  },
  // misc/ibvwrap.cc prints `lib wrapper not initialized.` when a verbs call is made but the libibverbs symbols were
  // never loaded (https://github.com/NVIDIA/nccl/blob/master/src/misc/ibvwrap.cc; shape in
  // https://github.com/deepspeedai/DeepSpeed/issues/8248).
  {
    id: "NO_LIBIBVERBS",
    fallsBack: true,
    severity: "error",
    test: /Failed to open libibverbs|lib wrapper not initialized/,
    cause: "libibverbs is not installed in the image, so NCCL cannot use RDMA",
    fix: "Install rdma-core / libibverbs (MLNX_OFED user space) in the image.",
  },
  {
    id: "IB_RETRY_EXCEEDED",
    severity: "error",
    test: /status=(?:IBV_WC_RETRY_EXC_ERR\()?12\b|completion .*?with error 12\b/,
    cause:
      "completion status 12 (transport retry counter exceeded): no ACK within NCCL_IB_TIMEOUT × retries — packet loss, a dead link or peer, wrong routing, or a lossy RoCE fabric (PFC/ECN)",
    fix: "Check the named HCA's port counters and the peer node (`kube-rdma verify` on both), the switch's PFC/ECN setup and NCCL_IB_TC; a larger NCCL_IB_TIMEOUT only hides a link that flaps for longer than NCCL's default rides out (about 30 s at 20).",
  },
  {
    id: "IB_RNR_RETRY_EXCEEDED",
    severity: "error",
    test: /status=(?:IBV_WC_RNR_RETRY_EXC_ERR\()?13\b|completion .*?with error 13\b/,
    // NCCL's IB transport sets rnr_retry = 7 (retry forever) on its QPs (src/transport/net_ib.cc, ncclIbRtsQp), so
    // its own connections never end with status 13; the IB spec's RNR retry count 7 means infinite.
    cause:
      "completion status 13 (RNR retry exceeded: the receiver kept answering 'not ready'). NCCL's own IB transport retries RNR forever (rnr_retry 7), so this comes from a network plugin or library that sets a finite RNR retry, or a peer whose receive queue is gone",
    fix: "See which transport raised it (the log's `NET/IB` vs a net plugin such as libnccl-net.so) and look for the first failure on the peer rank's node.",
  },
  {
    id: "IB_WR_FLUSH",
    severity: "warning",
    test: /status=(?:IBV_WC_WR_FLUSH_ERR\()?5\b|completion .*?with error 5\b/,
    followOn: true,
    cause:
      "completion status 5 (work request flushed): the queue pair was already in error — a consequence of an earlier failure",
    fix: "Find the first WARN of the run (often a status 12 on this or the peer node).",
  },
  {
    id: "IB_REMOTE_ACCESS",
    severity: "error",
    test: /status=(?:IBV_WC_REM_ACCESS_ERR\()?10\b|completion .*?with error 10\b/,
    cause:
      "completion status 10 (remote access error): memory registration mismatch, often with GPUDirect on a broken peer-memory setup",
    fix: "Check nvidia_peermem / DMA-BUF on both nodes (`kube-rdma verify`), and try NCCL_NET_GDR_LEVEL=LOC to confirm.",
  },
  // NCCL's own hint for IBV_WC_LOC_PROT_ERR (src/transport/net_ib/common.h, printIbWcStatusHint, NCCL ≥ 2.30):
  // "In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA protocol." With /GDRDMA
  // channel lines the GPU buffers did register: what fails is the NIC's peer-to-peer write, redirected by ACS.
  {
    id: "IB_LOCAL_PROTECTION",
    severity: "error",
    test: /status=(?:IBV_WC_LOC_PROT_ERR\()?4\b|completion .*?with error 4\b/,
    cause:
      "completion status 4 (local protection error): the HCA could not access a buffer it was given. With GPUDirect (/GDRDMA connections, so registration worked) NCCL's own hint is PCIe ACS: a switch port redirecting peer-to-peer traffic up to the root complex breaks the NIC's direct access to GPU memory",
    fix: "On the node: `kube-rdma verify` (PCIE_ACS_REDIRECT names the bridge; `lspci -vvv | grep ACSCtl`); disable ACS redirect on the PCIe switch ports between GPU and NIC as the server vendor documents (on hosts that pass devices to VMs, enable ATS instead). NCCL_NET_GDR_LEVEL=LOC confirms it by turning GPUDirect off.",
  },
  {
    id: "GID_INDEX_INVALID",
    severity: "error",
    test: /ibv_modify_qp failed with (?:22 |error )?Invalid argument/,
    cause:
      "ibv_modify_qp returned EINVAL: on RoCE almost always a wrong or forced GID index (NCCL_IB_GID_INDEX pointing at an empty, link-local or different slot on this HCA)",
    fix: "Use the GID selection from `kube-rdma nccl-env` (NCCL ≥ 2.21: unset NCCL_IB_GID_INDEX so NCCL auto-selects).",
  },
  // ibv_modify_qp ETIMEDOUT: on RoCE, the move to RTR makes the kernel resolve the peer GID's IP to a MAC
  // (ib_modify_qp_with_udata → ib_resolve_eth_dmac → rdma_addr_find_l2_eth_by_grh → rdma_resolve_ip with a 1000 ms
  // timeout; linux drivers/infiniband/core/verbs.c and addr.c). ETIMEDOUT means ARP/ND got no answer from that
  // source interface: the peer is unreachable from it (another rail: NCCL's own hint, src/misc/ibvwrap.cc
  // printIbModifyQpHint, says "NICs are not cross-rail connected"), the route from that source IP leaves by another
  // NIC, arp_ignore/arp_announce/rp_filter drop the exchange on a multi-NIC host, or the peer's port is down. It
  // happens within one subnet too.
  {
    id: "QP_TIMEOUT",
    severity: "error",
    test: /ibv_modify_qp failed with (?:110 )?Connection timed out/,
    cause:
      "ibv_modify_qp timed out (ETIMEDOUT): on RoCE the kernel could not resolve the peer's IP to a MAC within 1 s when the connection moved to RTR. ARP/ND got no answer from that NIC: the peer is not reachable from it (a NIC on another rail that is not cross-connected), the route from that source IP goes out of another NIC, arp_ignore/arp_announce/rp_filter drop the exchange on a multi-NIC host, or the peer's port is down",
    fix: "From this node, for the local and remote GIDs in the line: `ip route get <peer IP> from <local IP>` must leave by the NIC that owns the local IP, and `arping -I <that netdev> <peer IP>` must answer; on multi-NIC hosts set net.ipv4.conf.<netdev>.arp_ignore=1, arp_announce=2, rp_filter=2 (or 0) with a routing table per NIC; check the peer's port (`kube-rdma verify` there). If peers on other rails are unreachable by design, NCCL_CROSS_NIC=0 keeps connections on the same rail.",
  },
  // EFAULT ("Bad address") from ibv_reg_mr on a GPU buffer: the NIC driver could not pin/map the GPU pages, which
  // is GPUDirect's job (nvidia_peermem, or DMA-BUF with the open kernel module), or BAR1 is full. The memlock limit
  // gives ENOMEM instead (ibv_reg_mr(3): EFAULT "invalid address", ENOMEM "not enough resources"; NVIDIA GPUDirect
  // RDMA docs https://docs.nvidia.com/cuda/gpudirect-rdma/ and NCCL troubleshooting
  // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#gpu-direct-rdma).
  {
    id: "GPU_MEM_REG_FAILED",
    severity: "error",
    test: /ibv_reg_(?:mr|dmabuf_mr)\w* failed with error Bad address|ibv_reg_\w+.*EFAULT|ibv_reg_\w+ failed with (?:error )?14/,
    cause:
      "the NIC could not register GPU memory (EFAULT, Bad address): GPUDirect RDMA cannot map GPU buffers: the peer-memory module (nvidia_peermem) is not loaded, DMA-BUF is not available (it needs the open GPU kernel module and recent rdma-core/OFED), or the GPU's BAR1 space is exhausted",
    fix: "On the node: `kube-rdma verify` (it names the GPUDirect path: peermem, DMA-BUF or none); load nvidia_peermem (`modprobe nvidia_peermem`) or use the open GPU kernel module for DMA-BUF; check BAR1 with `nvidia-smi -q -d MEMORY`. NCCL_NET_GDR_LEVEL=LOC runs without GPUDirect to confirm.",
  },
  // ibvwrap.cc prints "Call to ibv_reg_mr failed with error <strerror(errno)>" (and "… errno N" for the int-returning
  // calls): the errno says which resource ran out (ibv_reg_mr(3), ibv_create_qp(3); https://github.com/NVIDIA/nccl/
  // blob/master/src/misc/ibvwrap.cc). EOPNOTSUPP on a GPU buffer: the NIC driver cannot register GPU memory at all.
  {
    id: "REG_MR_NOT_SUPPORTED",
    severity: "error",
    test: /ibv_reg_\w*mr\w* failed with (?:error )?(?:Operation not supported|95\b)|ibv_reg_\w*mr\w*.*errno 95\b/,
    cause:
      "registering memory with the NIC is not supported (EOPNOTSUPP): for a GPU buffer there is no GPUDirect path — no peer-memory module (nvidia_peermem) and no DMA-BUF support in the GPU driver, kernel or rdma-core",
    fix: "On the node: `kube-rdma verify` names the GPUDirect path (peermem, DMA-BUF or none); load nvidia_peermem, or use the open GPU kernel module with a kernel and rdma-core that support DMA-BUF. NCCL_NET_GDR_LEVEL=LOC runs without GPUDirect meanwhile.",
  },
  // ENOMEM creating QPs/CQs: each connection holds NCCL_IB_QPS_PER_CONNECTION QPs per channel and peer, and each QP
  // costs HCA context memory (ICM); at scale the HCA runs out. The locked-memory limit gives ENOMEM too, but only
  // where the container lacks IPC_LOCK and its limit is low.
  {
    id: "QP_RESOURCES",
    severity: "error",
    test: /ibv_create_(?:qp|cq|srq)\w* failed with (?:error )?(?:Cannot allocate memory|12\b)|ibv_create_(?:qp|cq|srq)\w*.*errno 12\b/,
    cause:
      "creating a queue pair or completion queue failed with ENOMEM: at scale the HCA's QP/context memory (ICM) is exhausted — peers × channels × NCCL_IB_QPS_PER_CONNECTION queue pairs per process; only where the container lacks IPC_LOCK and `ulimit -l` is low is it the locked-memory limit",
    fix: "Count the QPs: lower NCCL_IB_QPS_PER_CONNECTION (1 is NCCL's default) or the channel count (NCCL_MAX_NCHANNELS) and check the HCA's limits (`ibv_devinfo -v`: max_qp, max_cq); in the pod check `ulimit -l` and the IPC_LOCK capability (`kube-rdma verify --pod`).",
  },
  {
    id: "MEMLOCK",
    severity: "error",
    test: /RLIMIT_MEMLOCK|memlock|ibv_reg_\w*mr\w* failed with (?:error )?(?:Cannot allocate memory|12\b)|ibv_reg_\w*mr\w*.*errno 12\b/i,
    cause:
      "registering memory failed with ENOMEM: the locked-memory limit (ulimit -l) is too low for the buffers NCCL pins — where the container lacks IPC_LOCK and its memlock limit is small; with a GPU buffer and an unlimited limit, the GPU's BAR1 space is full instead",
    fix: "In the pod: `ulimit -l` (unlimited expected) and the IPC_LOCK capability (`kube-rdma verify --pod` says both); raise the limit in the container runtime (LimitMEMLOCK / default-ulimits) and add IPC_LOCK. If both are fine, check BAR1 with `nvidia-smi -q -d MEMORY`.",
  },
  // net_ib.cc: `if (wrap_ibv_open_device(...) != ncclSuccess || context == NULL) { WARN("NET/IB : Unable to open
  // device %s", ...); continue; }` — the device is skipped, the others are used
  // (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc; shape in https://github.com/zai-org/ImageReward/issues/65).
  {
    id: "IB_DEVICE_NOT_OPENED",
    severity: "warning",
    test: /Unable to open device|Call to ibv_open_device failed/,
    cause:
      "NCCL could not open this RDMA device (ibv_open_device failed: its /dev/infiniband/uverbs node is missing or not accessible in the container) and went on without it; the devices it lists afterwards are the ones it uses",
    fix: "If the device should be used, give the pod its uverbs node (the RDMA resource) and check `ibv_devinfo` inside it; otherwise leave it out with NCCL_IB_HCA.",
  },
  {
    id: "VERBS_CALL_FAILED",
    severity: "error",
    test: /Call to ibv_\w+ failed/,
    cause:
      "a verbs call failed; the error text and errno in the line say why (see the call's man page, e.g. ibv_reg_mr(3))",
    fix: "Read the errno in the line: ENOMEM = a resource limit, EINVAL = a bad argument (often the GID index), EOPNOTSUPP = not supported by this NIC/driver, EFAULT = an address the NIC cannot map.",
  },
  {
    id: "NO_IP_INTERFACE",
    severity: "error",
    test: /No IP interface found|no socket interface found|NET\/Socket : no interface found|Bootstrap : no socket interface/i,
    cause: "no IP interface matched NCCL_SOCKET_IFNAME, so NCCL cannot bootstrap or open its out-of-band sockets",
    fix: "Set NCCL_SOCKET_IFNAME to an interface that exists in the pod (`kube-rdma nccl-env` uses the default-route one).",
  },
  {
    id: "INCOMPATIBLE_DEVICES",
    severity: "error",
    test: /incompatible devices/,
    cause: "InfiniBand and RoCE ports were selected together",
    fix: "Select NICs of one link type with NCCL_IB_HCA (`kube-rdma nccl-env`).",
  },
  {
    id: "ASYNC_EVENT",
    severity: "warning",
    test: /async (?:fatal )?event|GID table changed/i,
    cause: "the HCA reported an asynchronous event (port error or state change, GID table change)",
    fix: "Check the named port with `kube-rdma verify` and the switch logs; fatal events stop the communicator.",
  },
  // src/plugin/net.cc (net.cc before 2.19): `WARN("Error: network %s not found.", netName)` when NCCL_NET names a
  // network no loaded module offers (https://github.com/NVIDIA/nccl/blob/master/src/plugin/net.cc).
  {
    id: "NET_PLUGIN",
    severity: "error",
    // A network name may hold spaces (`network AWS Libfabric not found.`).
    test: /Failed to initialize any NET plugin|Error: network [^.]{0,40}?not found/,
    cause: "NCCL_NET forced a network module that failed to load",
    fix: "Unset NCCL_NET, or install the plugin library it names (libnccl-net-<name>.so).",
  },
  // An external network plugin's own failure: aws-ofi-nccl prints its WARNs as `NET/OFI <what> failed: <strerror>`,
  // `NET/OFI Couldn't open AV. RC: -22`, `NET/OFI Unable to register memory … RC: 12`
  // (https://github.com/aws/aws-ofi-nccl/blob/master/src/nccl_ofi_net.cpp; shapes in
  // https://github.com/aws/aws-ofi-nccl/issues/24 and https://github.com/aws/aws-ofi-nccl/issues/889).
  {
    id: "NET_PLUGIN_ERROR",
    severity: "error",
    test: /NET\/OFI\b.*(?:\bfailed\b|Couldn't|Could not|Unable to)/i,
    cause:
      "the network plugin (NET/OFI) reported a failure of its own: no usable fabric provider, or an endpoint, address vector or memory registration it could not create; the line gives the return code",
    fix: "Read the return code in the line (-22 EINVAL, 12 ENOMEM); check that the plugin and libfabric versions suit this NCCL version, that the fabric devices are in the pod and its locked-memory limit is unlimited (`kube-rdma verify --pod`).",
  },
  // bootstrap.cc's root thread gives up (`goto out`: no rank gets the ring, init never completes) when a rank checks in
  // twice, when the ranks disagree on the rank count, or when a rank is out of its range
  // (https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc; shape in
  // https://github.com/Lightning-AI/pytorch-lightning/issues/14986).
  {
    id: "BOOTSTRAP_ROOT",
    severity: "error",
    endsInit: true,
    test: /Bootstrap Root : (?:rank \d+ of \d+ ranks has already checked in|mismatch in (?:rank count|number of roots)|localId \d+ is out of range)/,
    cause:
      "the bootstrap root refused a rank: the same rank checked in twice, or the ranks disagree on how many there are — two processes were started with one rank, two jobs share one rendezvous (unique id, MASTER_ADDR:MASTER_PORT), or the world size differs between nodes",
    fix: "Start each rank once with its own rank number and the same world size on every node; give each job its own rendezvous port (MASTER_PORT, NCCL_COMM_ID) and check no stale process of an earlier run still holds it.",
  },
  // init.cc `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`, returned as ncclInvalidUsage
  // (https://github.com/NVIDIA/nccl/blob/master/src/init.cc; shapes in https://github.com/horovod/horovod/issues/3929,
  // https://github.com/NVIDIA/nccl/issues/1241).
  // bootstrap.cc bootstrapNetRecv (socketRecv in later versions): `WARN("Message truncated : received %d bytes instead of
  // %d")`, returning ncclInternalError, when a peer sends more than the exchange expects: the bootstrap's messages (its
  // ring addresses, the all-gather of peer info) differ in size between NCCL versions, and a stray process (another job,
  // a leftover of an earlier run) speaks none of them (https://github.com/NVIDIA/nccl/blob/master/src/bootstrap.cc).
  // Only bootstrap.cc's: the socket transport of NCCL ≤ 2.3 printed the same words for a transfer.
  {
    id: "BOOTSTRAP_TRUNCATED",
    severity: "error",
    endsInit: true,
    inLine: true,
    test: /bootstrap\.cc:\d+ NCCL WARN Message truncated : received \d+ bytes instead of \d+/,
    cause:
      "NCCL's bootstrap got a larger message from a peer than the exchange expects: the ranks run different NCCL versions (the bootstrap's messages differ between versions), or a process that is not one of this job's ranks reached its bootstrap port (another job, a leftover of an earlier run)",
    fix: "Check that every rank prints the same `NCCL version` banner (one image, one libnccl on every node), stop leftover processes of earlier runs on the nodes, and give each job its own rendezvous (unique id, MASTER_ADDR:MASTER_PORT).",
  },
  {
    id: "DUPLICATE_GPU",
    severity: "error",
    endsInit: true,
    test: /Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device/,
    cause:
      "two ranks of one communicator run on the same GPU: every process sees the same device (CUDA_VISIBLE_DEVICES, a pod given one GPU for several ranks, a time-sliced or shared GPU), or the program does not select its local rank's device before NCCL starts",
    fix: "Give every rank its own GPU: select the device from the local rank before creating the communicator (torch.cuda.set_device(local_rank)), launch as many ranks per node as the pod has GPUs (nvidia.com/gpu), and do not run one NCCL job's ranks on a shared or time-sliced GPU.",
  },
  // misc/socket.cc `socketStartConnect: Connect to %s failed : %s` (NCCL ≥ 2.17), `Net : Connect to %s failed : %s`
  // (before it) and `socketPollConnect: Connect to %s returned %d(%s) errno %d(%s)` (a connect that failed outright,
  // e.g. 113 No route to host), raised for the bootstrap's, the socket transport's and the proxy's own connections
  // (https://github.com/NVIDIA/nccl/blob/master/src/misc/socket.cc; shapes in https://github.com/NVIDIA/nccl-tests/issues/166).
  {
    id: "SOCKET_CONNECT",
    severity: "error",
    test: /Connect to \S+ failed\b|Connect to \S+ returned \d+\(|Call to connect failed/,
    cause:
      "a TCP connection to a peer failed (refused, aborted, no route, timed out): the peer process is not listening (it died or has not started), a firewall or network policy blocks NCCL's ports, or NCCL_SOCKET_IFNAME picked an interface the peers cannot reach",
    fix: "Check that every rank started and is still running (the first error of the other ranks), that the address in the line is reachable from this node on that interface (ping, nc), and set NCCL_SOCKET_IFNAME to the interface the nodes share (`kube-rdma nccl-env`).",
  },
  // net_ib.cc `NET/IB : req … collective mismatch error, local size %d remote size %d` and net_socket.cc `NET/Socket : peer
  // %s message truncated : receiving %d bytes instead of %d` (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_socket.cc).
  {
    id: "COLLECTIVE_MISMATCH",
    severity: "error",
    ran: true,
    test: /collective mismatch error|message truncated : receiving/,
    cause:
      "two ranks disagree on the operation they run (different collectives, sizes or call order), or on NCCL_PROTO / NCCL_ALGO: the bytes one rank sent do not fit what its peer posted",
    fix: "Give every rank the same NCCL variables (compare `kube-rdma nccl-env` across nodes) and check that every rank calls the same collectives in the same order with the same sizes.",
  },
  {
    id: "PEER_GONE",
    severity: "warning",
    test: /Connection closed by remote peer|Call to recv from|connect to .* failed|Connection refused|Connection reset/i,
    cause: "a peer process died or became unreachable; usually the consequence of another rank's failure",
    fix: "Find the first WARN or crash on the other ranks; fix that one.",
  },
  {
    id: "CUDA",
    severity: "error",
    // PyTorch's `ncclUnhandledCudaError: Call to CUDA function failed.` (NCCLUtils.cpp) is NCCL's ncclUnhandledCudaError.
    test: /Cuda failure|unhandled cuda error|CUDA error|ncclUnhandledCudaError/i,
    cause: "a CUDA call failed (out of memory, a bad device, a driver problem)",
    fix: "Read the CUDA error text; check `nvidia-smi` on the node (`kube-rdma verify`).",
  },
  // The shared-memory transport's segment in /dev/shm: src/misc/shmutils.cc `Error: failed to extend %s to %ld bytes`,
  // `Error while creating shared memory segment %s (size %ld)`, `Error while attaching to shared memory segment …`;
  // before NCCL 2.12 include/shm.h `Call to posix_fallocate failed : %s` (https://github.com/NVIDIA/nccl/blob/master/src/misc/shmutils.cc,
  // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#shared-memory; shapes in
  // https://github.com/NVIDIA/nccl/issues/525 and https://github.com/pytorch/ci-infra/pull/490).
  {
    id: "SHM",
    severity: "error",
    test: /shared memory segment|failed to extend \/dev\/shm|posix_fallocate failed/,
    cause:
      "NCCL could not create or attach the shared-memory segment its processes on a node share: /dev/shm is too small or full (a container gets 64 MiB by default), stale /dev/shm/nccl-* files fill it, or the segment was removed before a peer attached (the creating process exited, systemd's RemoveIPC)",
    fix: "Give the pod a larger /dev/shm (an emptyDir with medium: Memory mounted at /dev/shm; outside Kubernetes --shm-size or --ipc=host), remove stale /dev/shm/nccl-* files; NCCL_SHM_DISABLE=1 avoids it at some cost to traffic inside the node.",
  },
  // init.cc `WARN("Invalid rank requested : %d/%d", myrank, nranks)` before returning ncclInvalidArgument from
  // ncclCommInitRank (src/init.cc, https://github.com/NVIDIA/nccl; shape in https://github.com/Azure/AML-Kubernetes/issues/58).
  {
    id: "INVALID_RANK",
    severity: "error",
    endsInit: true,
    test: /Invalid rank requested : -?\d+\/\d+/,
    cause:
      "a process asked to join the communicator with a rank that is not below the number of ranks: the launcher's RANK/WORLD_SIZE (or the job's replica and GPU counts) disagree with each other",
    fix: "Make the world size the launcher passes equal the number of processes it starts (replicas × processes per replica), and give each process a distinct rank below it.",
  },
  {
    id: "TOPOLOGY",
    severity: "error",
    endsInit: true,
    test: /does not loop back|does not contain rank/,
    cause: "ranks disagree on the topology (different NCCL settings or hardware across nodes)",
    fix: "Give every rank the same NCCL variables and NCCL version; compare `kube-rdma nccl-env` across nodes.",
  },
  // graph/paths.cc `WARN("Failed to find reverse path from remNode %d/%lx nlinks %d to node %d/%lx")`, returning
  // ncclInternalError (src/graph/paths.cc, https://github.com/NVIDIA/nccl; RCCL prints the same, shape in
  // https://github.com/ROCm/rccl/issues/1728): a link of the topology graph NCCL read has no way back.
  {
    id: "TOPOLOGY_PATH",
    severity: "error",
    endsInit: true,
    test: /Failed to find reverse path from remNode\b/,
    cause:
      "NCCL could not compute the paths of its topology graph: a device it found has a link with no link back, as when the devices a process may see (CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, a container's device list) or a virtual machine's PCI tree hide part of the topology, or NCCL_TOPO_FILE describes other hardware",
    fix: "Give every process the same view of the node's GPUs and NICs (select GPUs by the visibility variable the runtime documents rather than hiding devices from it), and drop or regenerate NCCL_TOPO_FILE if one is set.",
  },
  // src/graph/xml.h `WARN("Attribute %s of node %s not found")` and src/graph/xml.cc's `XML Parse …`, `XML Mismatch`,
  // `XML Topology has wrong version`, each returning an error from ncclTopoGetSystem, which only init calls
  // (https://github.com/NVIDIA/nccl; shape `graph/xml.h:101 NCCL WARN Attribute arch of node cpu not found` seen at
  // https://github.com/awslabs/awsome-distributed-ai/issues/519).
  {
    id: "TOPOLOGY_XML",
    severity: "error",
    endsInit: true,
    test: /\bAttribute \w+ of node \w+ not found|\bXML (?:Parse|Mismatch)\b|\bXML Topology has wrong version\b/,
    cause:
      "NCCL could not build its topology: the topology XML it read lacks an attribute this NCCL needs or does not parse, as when NCCL_TOPO_FILE (or a file a network plugin installs) was written for another NCCL version or other hardware",
    fix: "Use the topology file made for this NCCL version and this node type, or unset NCCL_TOPO_FILE so NCCL detects the topology itself; `NCCL_TOPO_DUMP_FILE` writes the XML NCCL builds, to compare.",
  },
  {
    id: "PROXY_ERROR",
    severity: "warning",
    followOn: true,
    test: /\[Proxy Service \d+\]|\[Service thread\]|\[Proxy Progress\]|Proxy Call to rank \d+ failed|Socket recv failed while polling/,
    cause: "NCCL's proxy thread gave up on a connection after an earlier failure (a peer gone, a network error)",
    fix: "Read the first WARN before it on this rank or its peer; that one is the fault.",
  },
  {
    id: "SYSTEM_ERROR",
    severity: "error",
    followOn: true,
    test: /unhandled system error|ncclSystemError/,
    cause: "a system or verbs call failed inside NCCL; the WARN lines before it say which",
    fix: "Re-run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read the first WARN of the failing rank.",
  },
  // The result NCCL hands back when a call fails without a system error: ncclInternalError ("internal error - please
  // report this issue to the NCCL developers"), ncclInvalidArgument ("invalid argument"), ncclInvalidUsage ("invalid
  // usage") and ncclRemoteError ("remote process exited or there was a network error"), as the caller prints it
  // (src/misc/utils.cc ncclGetErrorString, https://github.com/NVIDIA/nccl/blob/master/src/misc/utils.cc; shapes in
  // https://github.com/Azure/msccl/issues/26, https://github.com/NVIDIA/nccl/issues/1837 and
  // https://github.com/PrimeIntellect-ai/verifiers/issues/78).
  {
    id: "NCCL_ERROR_RESULT",
    severity: "error",
    followOn: true,
    test: /\binternal error\b|ncclInternalError|\binvalid (?:usage|argument)\b|ncclInvalid(?:Usage|Argument)|\bremote process exited or there was a network error\b|ncclRemoteError/,
    cause:
      "an NCCL call returned an error (internal error, invalid argument or usage, a remote process gone) to the program; the WARN lines before it say why",
    fix: "Read the first WARN of the failing rank; for invalid usage check the NCCL variables and the order of NCCL calls in the program.",
  },
  {
    id: "RAS_SOCKET",
    severity: "info",
    inLine: true,
    test: /ras\/client_support\.cc:\d+ NCCL WARN Call to bind failed/,
    cause:
      "NCCL's RAS client socket (localhost:28028 by default) was already taken, usually by another NCCL process on the node: only the `ncclras` status query is off for this process, the job itself is not affected",
    fix: "Nothing to do for the job; to query it with `ncclras`, give each process its own NCCL_RAS_ADDR (host:port), or set NCCL_RAS_ENABLE=0 to silence it.",
  },
  // src/misc/socket.cc ncclSocketListen `SYSCHECK(bind(…), "bind")` → `Call to bind failed: %s` (include/socket.h before
  // 2.12), returning ncclSystemError; a listening socket asks for any port unless one is fixed (NCCL_COMM_ID's, the
  // bootstrap root's), so a taken port is a fixed one, listened on while the communicator is set up
  // (https://github.com/NVIDIA/nccl; shape seen at https://github.com/open-mmlab/mmdetection/issues/7047). After the RAS
  // client's own bind above, which affects no job.
  {
    id: "SOCKET_BIND",
    severity: "error",
    endsInit: true,
    test: /Call to bind failed ?: /,
    cause:
      "NCCL could not listen on a port it was told to use: the fixed port (NCCL_COMM_ID's, the bootstrap root's) is still held, usually by an earlier run of the job on this node that was killed while its socket lingered or is still running",
    fix: "Stop the earlier run's processes on this node (`ss -ltnp` shows who holds the port), wait for the port to be released, or give the job another port.",
  },
  {
    id: "OTHER",
    severity: "warning",
    test: /[\s\S]/,
    cause: "an NCCL warning kube-rdma does not know",
    fix: "Read the warning text; search it in NVIDIA's NCCL troubleshooting guide.",
  },
];

/** The cause of a WARN message; `line` is the whole line it came from, for the causes told by where NCCL raised it. */
export function causeOf(text: string, line = text): LogCause {
  for (const c of LOG_CAUSES) if (c.test.test(c.inLine ? line : text)) return c;
  return LOG_CAUSES[LOG_CAUSES.length - 1]!;
}

/** Whether warnings of cause `id` say only that NCCL went on without RDMA (LogCause.fallsBack). */
export function fallsBack(id: string): boolean {
  return LOG_CAUSES.some((c) => c.id === id && c.fallsBack === true);
}

/** Whether warnings of cause `id` end a communicator's init (LogCause.endsInit). */
export function endsInit(id: string): boolean {
  return LOG_CAUSES.some((c) => c.id === id && c.endsInit === true);
}
