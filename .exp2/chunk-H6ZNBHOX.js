import {
  MAX_KEYS,
  MAX_SAMPLES,
  bump,
  setCapped
} from "./chunk-B5JLMUH7.js";

// src/nccl/log/causes.ts
var LOG_CAUSES = [
  {
    id: "NO_IB_DEVICE",
    severity: "error",
    test: /NET\/IB ?: No device found/,
    cause: "NCCL found no active IB/RoCE port it may use: /dev/infiniband not in the container, NCCL_IB_HCA naming no active port, or libibverbs missing",
    fix: "Give the pod the RDMA resource and IPC_LOCK, check `ibv_devinfo` inside it, and set NCCL_IB_HCA from `kube-rdma nccl-env`."
  },
  // net_ib.cc: `INFO(NCCL_INIT|NCCL_NET, "NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (%s)", …)` when neither
  // nvidia_peermem nor DMA-BUF can serve the HCA (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc).
  {
    id: "GDR_DISABLED_FOR_HCA",
    severity: "warning",
    test: /GPU Direct RDMA Disabled for HCA/,
    cause: "NCCL turned GPUDirect RDMA off for this HCA (the reason NCCL gives is in the line: no peer-memory module, DMA-BUF not supported, or the GPU too far from the NIC): its traffic is staged through host memory",
    fix: "On the node: `kube-rdma verify` names the GPUDirect path (nvidia_peermem, DMA-BUF or none) and each GPU's distance to its NIC; load nvidia_peermem or use the open GPU kernel module for DMA-BUF."
  },
  // param.cc prints "NCCL_IB_DISABLE set by environment to 1": RDMA is off by choice, TCP sockets carry everything.
  {
    id: "IB_DISABLED_BY_ENV",
    severity: "warning",
    test: /NCCL_IB_DISABLE set by environment to 1/,
    cause: "NCCL_IB_DISABLE=1 is set in the environment: RDMA is turned off by choice and NCCL runs over TCP sockets",
    fix: "Remove NCCL_IB_DISABLE=1 from the job (kube-rdma lint flags it in manifests), or set it to 0."
  },
  {
    id: "NO_LIBIBVERBS",
    severity: "error",
    test: /Failed to open libibverbs/,
    cause: "libibverbs is not installed in the image, so NCCL cannot use RDMA",
    fix: "Install rdma-core / libibverbs (MLNX_OFED user space) in the image."
  },
  {
    id: "IB_RETRY_EXCEEDED",
    severity: "error",
    test: /status=(?:IBV_WC_RETRY_EXC_ERR\()?12\b|completion .*?with error 12\b/,
    cause: "completion status 12 (transport retry counter exceeded): no ACK within NCCL_IB_TIMEOUT \xD7 retries \u2014 packet loss, a dead link or peer, wrong routing, or a lossy RoCE fabric (PFC/ECN)",
    fix: "Check the named HCA's port counters and the peer node (`kube-rdma verify` on both), the switch's PFC/ECN setup and NCCL_IB_TC; NCCL_IB_TIMEOUT=22 rides out short flaps."
  },
  {
    id: "IB_RNR_RETRY_EXCEEDED",
    severity: "error",
    test: /status=(?:IBV_WC_RNR_RETRY_EXC_ERR\()?13\b|completion .*?with error 13\b/,
    // NCCL's IB transport sets rnr_retry = 7 (retry forever) on its QPs (src/transport/net_ib.cc, ncclIbRtsQp), so
    // its own connections never end with status 13; the IB spec's RNR retry count 7 means infinite.
    cause: "completion status 13 (RNR retry exceeded: the receiver kept answering 'not ready'). NCCL's own IB transport retries RNR forever (rnr_retry 7), so this comes from a network plugin or library that sets a finite RNR retry, or a peer whose receive queue is gone",
    fix: "See which transport raised it (the log's `NET/IB` vs a net plugin such as libnccl-net.so) and look for the first failure on the peer rank's node."
  },
  {
    id: "IB_WR_FLUSH",
    severity: "warning",
    test: /status=(?:IBV_WC_WR_FLUSH_ERR\()?5\b|completion .*?with error 5\b/,
    followOn: true,
    cause: "completion status 5 (work request flushed): the queue pair was already in error \u2014 a consequence of an earlier failure",
    fix: "Find the first WARN of the run (often a status 12 on this or the peer node)."
  },
  {
    id: "IB_REMOTE_ACCESS",
    severity: "error",
    test: /status=(?:IBV_WC_REM_ACCESS_ERR\()?10\b|completion .*?with error 10\b/,
    cause: "completion status 10 (remote access error): memory registration mismatch, often with GPUDirect on a broken peer-memory setup",
    fix: "Check nvidia_peermem / DMA-BUF on both nodes (`kube-rdma verify`), and try NCCL_NET_GDR_LEVEL=LOC to confirm."
  },
  {
    id: "IB_LOCAL_PROTECTION",
    severity: "error",
    test: /status=(?:IBV_WC_LOC_PROT_ERR\()?4\b|completion .*?with error 4\b/,
    cause: "completion status 4 (local protection error): the HCA could not access a registered buffer \u2014 with GPUDirect usually GPU memory registration (nvidia_peermem / DMA-BUF) that does not hold",
    fix: "Check nvidia_peermem or DMA-BUF support on this node (`kube-rdma verify`); NCCL_NET_GDR_LEVEL=LOC confirms it by turning GPUDirect off."
  },
  {
    id: "GID_INDEX_INVALID",
    severity: "error",
    test: /ibv_modify_qp failed with (?:22 |error )?Invalid argument/,
    cause: "ibv_modify_qp returned EINVAL: on RoCE almost always a wrong or forced GID index (NCCL_IB_GID_INDEX pointing at an empty, link-local or different slot on this HCA)",
    fix: "Use the GID selection from `kube-rdma nccl-env` (NCCL \u2265 2.21: unset NCCL_IB_GID_INDEX so NCCL auto-selects)."
  },
  {
    id: "QP_TIMEOUT",
    severity: "error",
    test: /ibv_modify_qp failed with (?:110 )?Connection timed out/,
    cause: "ibv_modify_qp timed out: the NICs cannot reach each other across rails (not cross-connected) or routing is wrong",
    fix: "Check the fabric routing between rails; NCCL_CROSS_NIC=0 keeps rings on the same NIC index across nodes."
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
    cause: "the NIC could not register GPU memory (EFAULT, Bad address): GPUDirect RDMA cannot map GPU buffers: the peer-memory module (nvidia_peermem) is not loaded, DMA-BUF is not available (it needs the open GPU kernel module and recent rdma-core/OFED), or the GPU's BAR1 space is exhausted",
    fix: "On the node: `kube-rdma verify` (it names the GPUDirect path: peermem, DMA-BUF or none); load nvidia_peermem (`modprobe nvidia_peermem`) or use the open GPU kernel module for DMA-BUF; check BAR1 with `nvidia-smi -q -d MEMORY`. NCCL_NET_GDR_LEVEL=LOC runs without GPUDirect to confirm."
  },
  {
    id: "MEMLOCK",
    severity: "error",
    test: /ibv_reg_mr|ibv_create_qp|ibv_create_cq|Cannot allocate memory|RLIMIT_MEMLOCK|memlock/i,
    cause: "registering or creating RDMA resources failed: the locked-memory limit (ulimit -l) is too low",
    fix: "Run with `ulimit -l unlimited` (limits.conf, container runtime) and add the IPC_LOCK capability in pods."
  },
  {
    id: "NO_IP_INTERFACE",
    severity: "error",
    test: /No IP interface found|no socket interface found|NET\/Socket : no interface found|Bootstrap : no socket interface/i,
    cause: "no IP interface matched NCCL_SOCKET_IFNAME, so NCCL cannot bootstrap or open its out-of-band sockets",
    fix: "Set NCCL_SOCKET_IFNAME to an interface that exists in the pod (`kube-rdma nccl-env` uses the default-route one)."
  },
  {
    id: "INCOMPATIBLE_DEVICES",
    severity: "error",
    test: /incompatible devices/,
    cause: "InfiniBand and RoCE ports were selected together",
    fix: "Select NICs of one link type with NCCL_IB_HCA (`kube-rdma nccl-env`)."
  },
  {
    id: "ASYNC_EVENT",
    severity: "warning",
    test: /async (?:fatal )?event|GID table changed/i,
    cause: "the HCA reported an asynchronous event (port error or state change, GID table change)",
    fix: "Check the named port with `kube-rdma verify` and the switch logs; fatal events stop the communicator."
  },
  {
    id: "NET_PLUGIN",
    severity: "error",
    test: /Failed to initialize any NET plugin/,
    cause: "NCCL_NET forced a network module that failed to load",
    fix: "Unset NCCL_NET, or install the plugin library it names (libnccl-net-<name>.so)."
  },
  // misc/socket.cc `socketStartConnect: Connect to %s failed : %s` (NCCL ≥ 2.17) and `Net : Connect to %s failed : %s`
  // (before it), raised for the socket transport's and the proxy's own connections
  // (https://github.com/NVIDIA/nccl/blob/master/src/misc/socket.cc; shapes in https://github.com/NVIDIA/nccl-tests/issues/166).
  {
    id: "SOCKET_CONNECT",
    severity: "error",
    test: /Connect to \S+ failed\b|Call to connect failed/,
    cause: "a TCP connection to a peer failed (refused, aborted, no route, timed out): the peer process is not listening (it died or has not started), a firewall or network policy blocks NCCL's ports, or NCCL_SOCKET_IFNAME picked an interface the peers cannot reach",
    fix: "Check that every rank started and is still running (the first error of the other ranks), that the address in the line is reachable from this node on that interface (ping, nc), and set NCCL_SOCKET_IFNAME to the interface the nodes share (`kube-rdma nccl-env`)."
  },
  // net_ib.cc `NET/IB : req … collective mismatch error, local size %d remote size %d` and net_socket.cc `NET/Socket : peer
  // %s message truncated : receiving %d bytes instead of %d` (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_socket.cc).
  {
    id: "COLLECTIVE_MISMATCH",
    severity: "error",
    test: /collective mismatch error|message truncated : receiving/,
    cause: "two ranks disagree on the operation they run (different collectives, sizes or call order), or on NCCL_PROTO / NCCL_ALGO: the bytes one rank sent do not fit what its peer posted",
    fix: "Give every rank the same NCCL variables (compare `kube-rdma nccl-env` across nodes) and check that every rank calls the same collectives in the same order with the same sizes."
  },
  {
    id: "PEER_GONE",
    severity: "warning",
    test: /Connection closed by remote peer|Call to recv from|connect to .* failed|Connection refused|Connection reset/i,
    cause: "a peer process died or became unreachable; usually the consequence of another rank's failure",
    fix: "Find the first WARN or crash on the other ranks; fix that one."
  },
  {
    id: "CUDA",
    severity: "error",
    test: /Cuda failure|unhandled cuda error|CUDA error/i,
    cause: "a CUDA call failed (out of memory, a bad device, a driver problem)",
    fix: "Read the CUDA error text; check `nvidia-smi` on the node (`kube-rdma verify`)."
  },
  {
    id: "TOPOLOGY",
    severity: "error",
    test: /does not loop back|does not contain rank/,
    cause: "ranks disagree on the topology (different NCCL settings or hardware across nodes)",
    fix: "Give every rank the same NCCL variables and NCCL version; compare `kube-rdma nccl-env` across nodes."
  },
  {
    id: "PROXY_ERROR",
    severity: "warning",
    followOn: true,
    test: /\[Proxy Service \d+\]|\[Service thread\]|\[Proxy Progress\]|Proxy Call to rank \d+ failed|Socket recv failed while polling/,
    cause: "NCCL's proxy thread gave up on a connection after an earlier failure (a peer gone, a network error)",
    fix: "Read the first WARN before it on this rank or its peer; that one is the fault."
  },
  {
    id: "SYSTEM_ERROR",
    severity: "error",
    followOn: true,
    test: /unhandled system error|ncclSystemError/,
    cause: "a system or verbs call failed inside NCCL; the WARN lines before it say which",
    fix: "Re-run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read the first WARN of the failing rank."
  },
  {
    id: "RAS_SOCKET",
    severity: "info",
    inLine: true,
    test: /ras\/client_support\.cc:\d+ NCCL WARN Call to bind failed/,
    cause: "NCCL's RAS client socket (localhost:28028 by default) was already taken, usually by another NCCL process on the node: only the `ncclras` status query is off for this process, the job itself is not affected",
    fix: "Nothing to do for the job; to query it with `ncclras`, give each process its own NCCL_RAS_ADDR (host:port), or set NCCL_RAS_ENABLE=0 to silence it."
  },
  {
    id: "OTHER",
    severity: "warning",
    test: /[\s\S]/,
    cause: "an NCCL warning kube-rdma does not know",
    fix: "Read the warning text; search it in NVIDIA's NCCL troubleshooting guide."
  }
];
function causeOf(text, line = text) {
  for (const c of LOG_CAUSES) if (c.test.test(c.inLine ? line : text)) return c;
  return LOG_CAUSES[LOG_CAUSES.length - 1];
}

// src/nccl/log/line.ts
function intAfter(s, label, from, end) {
  const at = indexInLine(s, label, from, end);
  if (at < 0) return -1;
  let i = at + label.length;
  let n = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
    digits++;
  }
  return digits ? n : -1;
}
function indexInLine(s, needle, from, end) {
  if (end - from < needle.length) return -1;
  const at = s.slice(from, end).indexOf(needle);
  return at < 0 ? -1 : from + at;
}
function keep(str) {
  return str.length < 13 ? str : ` ${str}`.slice(1);
}
function processKey(s, p, k, end = k) {
  const sp = indexInLine(s, " ", p, Math.min(k, end));
  const stop = sp >= 0 ? sp : k;
  const head = s.slice(p, stop);
  const last = head.lastIndexOf(":");
  return last > 0 ? head.slice(0, last) : head;
}
function hostOf(key) {
  const c = key.indexOf(":");
  return c >= 0 ? key.slice(0, c) : key;
}
function isDigit(c) {
  return c >= 48 && c <= 57;
}
function skipPrefixes(s, start, end) {
  let i = start;
  for (let round = 0; round < 4 && i < end; round++) {
    const c = s.charCodeAt(i);
    if (c === 27 && s.charCodeAt(i + 1) === 91) {
      let j = i + 2;
      while (j < end && j - i < 16 && !(s.charCodeAt(j) >= 64 && s.charCodeAt(j) <= 126)) j++;
      i = j + 1;
    } else if (c === 91) {
      const close = indexInLine(s, "]", i, Math.min(end, i + 41));
      if (close < 0) return i;
      const after = s.charCodeAt(close + 1);
      if (after === 60) {
        const tag = indexInLine(s, ">:", close, Math.min(end, close + 14));
        if (tag < 0) return i;
        i = tag + 2;
      } else if (charIn(s, i + 5, end) === 45 && after === 32) {
        i = close + 2;
      } else if (after === 58 && !s.startsWith(" NCCL ", close + 2)) {
        i = close + 2;
      } else if (after === 32 && s.charCodeAt(close + 2) !== 78 && indexInLine(s, ":", i, close) < 0) {
        i = close + 2;
      } else return i;
    } else if (c === 32 || isDigit(c)) {
      let j = i;
      while (j < end && s.charCodeAt(j) === 32) j++;
      const digits = j;
      while (j < end && isDigit(s.charCodeAt(j))) j++;
      if (j > digits && s.charCodeAt(j) === 58 && s.charCodeAt(j + 1) === 32) {
        i = j + 2;
      } else if (j - digits === 4 && s.charCodeAt(j) === 45 && charIn(s, j + 6, end) === 84) {
        const sp = indexInLine(s, " ", j, end);
        if (sp < 0) return i;
        i = sp + 1;
      } else if (j - digits === 4 && s.charCodeAt(j) === 45 && charIn(s, j + 6, end) === 32 && charIn(s, j + 9, end) === 58 && charIn(s, j + 12, end) === 58) {
        const sp = indexInLine(s, " ", j + 7, end);
        if (sp < 0) return i;
        i = sp + 1;
      } else if (j === digits && j > i) {
        i = j;
      } else return i;
    } else return i;
  }
  return i;
}
function charIn(s, i, end) {
  return i < end ? s.charCodeAt(i) : -1;
}
function pdshPrefixed(s, start, end) {
  const stop = Math.min(end, start + 256);
  const space = s.indexOf(" ", start);
  if (space < 0 || space >= stop || space <= start + 1 || s.charCodeAt(space - 1) !== 58) return false;
  const bracket = s.indexOf("[", start);
  const newline = s.indexOf("\n", start);
  return (bracket < 0 || bracket > space) && (newline < 0 || newline > space);
}
function beforeColourReset(s, start, end) {
  const from = Math.max(start, end - 8);
  const esc = s.lastIndexOf("\x1B[", end - 1);
  if (esc < from) return end;
  for (let i = esc + 2; i < end - 1; i++) {
    const c = s.charCodeAt(i);
    if (!(c === 59 || isDigit(c))) return end;
  }
  return esc;
}

// src/nccl/log/scan.ts
function within(s, text, at, end) {
  return at + text.length <= end && s.startsWith(text, at);
}
var TIME_STAMP = /\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d/;
var COLOUR = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
var LineScanner = class {
  constructor(st) {
    this.st = st;
  }
  st;
  /** Cached next occurrences of markers (searches never rescan: linear in the chunk whatever the content). */
  nextNccl = -1;
  nextVia = -1;
  chunk = "";
  /** Scans every complete line of `s`; returns the index after the last newline (the rest is a partial line). */
  scanChunk(s, from = 0) {
    this.chunk = s;
    this.nextNccl = -1;
    this.nextVia = -1;
    this.nextGdr = -1;
    let pos = from;
    const len = s.length;
    while (pos < len) {
      const nl = s.indexOf("\n", pos);
      if (nl < 0) break;
      this.line(s, pos, nl);
      pos = nl + 1;
    }
    return pos;
  }
  /** Scans one line given on its own (the `push(line)` interface). */
  scanLine(line) {
    this.chunk = line;
    this.nextNccl = -1;
    this.nextVia = -1;
    this.nextGdr = -1;
    this.line(line, 0, line.length);
  }
  line(s, start, endRaw) {
    const st = this.st;
    let end = endRaw;
    if (end > start && s.charCodeAt(end - 1) === 13) end--;
    if (end > start && s.charCodeAt(end - 1) === 109) end = beforeColourReset(s, start, end);
    if (end === start) return;
    st.lines++;
    const q = pdshPrefixed(s, start, end) ? indexInLine(s, " ", start, end) + 1 : start;
    const c0 = s.charCodeAt(q);
    const p = c0 >= 97 && c0 <= 122 || c0 >= 65 && c0 <= 90 && c0 !== 78 ? q : skipPrefixes(s, q, end);
    if (this.nextNccl < p) {
      const at = s.indexOf("] NCCL ", p);
      this.nextNccl = at < 0 ? s.length : at + 1;
    }
    const k = this.nextNccl;
    if (k >= end) {
      this.plainLine(s, start, p, end);
      return;
    }
    st.ncclLines++;
    const lvl = k + 6;
    const c = s.charCodeAt(lvl);
    if (c === 73 && s.charCodeAt(lvl + 1) === 78) {
      if (lvl + 5 <= end) this.info(s, p, k, lvl + 5, end);
    } else if (c === 87 && s.startsWith("WARN", lvl)) this.warn(s, start, p, lvl + 5, end);
    else if (c === 101 && s.startsWith("error", lvl)) this.failure(s, start, end);
    else if (c === 118 && s.startsWith("version ", lvl)) this.version(s, k + 1, end, s.slice(start, p));
  }
  plainLine(s, start, p, end) {
    const st = this.st;
    if (s.startsWith("NCCL version ", p)) {
      st.ncclLines++;
      this.version(s, p, end, s.slice(start, p));
      return;
    }
    const text = s.slice(p, end);
    const w = text.indexOf(" NCCL WARN");
    if (w >= 0) {
      st.ncclLines++;
      this.warn(s, start, p, p + w + 11, end);
      return;
    }
    if (/ NCCL (?:INFO|TRACE|CALL) /.test(text)) {
      st.ncclLines++;
      return;
    }
    if (/[\u0000-\u0008\u000e-\u001a\ufffd]/.test(text)) st.binaryLines++;
    else if (/unhandled system error|NCCL error|ncclSystemError|ncclInternalError/.test(text)) this.failure(s, p, end);
  }
  info(s, p, k, msg, end) {
    const st = this.st;
    const c = s.charCodeAt(msg);
    if (c === 67) {
      if (s.charCodeAt(msg + 1) === 104 && charIn(s, msg + 7, end) === 32) this.channel(s, p, msg, end);
      return;
    }
    if (c === 82) {
      if (s.charCodeAt(msg + 1) === 105 && charIn(s, msg + 4, end) === 32) this.channel(s, p, msg, end);
      return;
    }
    if (c === 70 && s.startsWith("Failed to open libibverbs", msg)) {
      this.addWarning(s.slice(msg, end), this.noteHost(s, p));
      return;
    }
    if (s.charCodeAt(end - 1) === 69 && s.startsWith("Init COMPLETE", end - 13)) {
      this.lineStart = p;
      this.initComplete(s, msg, end);
      return;
    }
    if (c === 78) {
      if (s.startsWith("NET/", msg)) this.netLine(s, p, k, msg, end);
      else if (s.startsWith("NCCL version ", msg)) this.version(s, msg, end, processKey(s, p, k));
      else if (s.startsWith("NCCL_", msg)) this.envLine(s, msg, end);
      return;
    }
    if (c === 99 && s.startsWith("comm 0x", msg)) {
      this.commSummary(s, msg, end);
      return;
    }
    if (c === 85 && s.startsWith("Using network ", msg)) {
      const key = processKey(s, p, k);
      const n = msg + 14;
      const net = end - n === 2 && s.startsWith("IB", n) ? "IB" : end - n === 6 && s.startsWith("Socket", n) ? "Socket" : s.slice(n, end).trim();
      if (st.networkOf.get(key) !== net) {
        setCapped(st.networkOf, keep(key), keep(net));
        if (st.hosts.size < MAX_KEYS) st.hosts.add(keep(hostOf(key)));
      }
      return;
    }
    if (c === 66 && s.startsWith("Bootstrap", msg)) {
      const m = /Using (?:\[\d+\])?([^:\s]+):/.exec(s.slice(msg, end));
      if (m) bump(st.bootstrap, m[1]);
      return;
    }
    if (c === 71 && s.startsWith("GPU Direct RDMA Disabled", msg)) {
      st.gdrDisabled++;
      if (st.gdrDisabledSamples.length < MAX_SAMPLES) st.gdrDisabledSamples.push(s.slice(msg, end));
    }
  }
  channel(s, p, msg, end) {
    const conn = this.st.conn;
    this.noteHost(s, p);
    if (this.nextVia < msg) {
      const at = s.indexOf("via ", msg);
      this.nextVia = at < 0 ? s.length : at;
    }
    const via = this.nextVia;
    if (via >= end) return;
    const t = via + 4;
    const c = t < end ? s.charCodeAt(t) : -1;
    if (c === 78 && t + 4 <= end && s.charCodeAt(t + 3) === 47) {
      const n = t + 4;
      if (within(s, "Socket", n, end)) {
        conn.socket++;
        return;
      }
      conn.net++;
      if (this.nextGdr < n) {
        const at = s.indexOf("GDRDMA", n);
        this.nextGdr = at < 0 ? s.length : at;
      }
      if (this.nextGdr + 6 <= end) conn.netGdr++;
      if (within(s, "IB/", n, end)) this.st.ibConns++;
      else {
        const slash = indexInLine(s, "/", n, end);
        bump(this.st.netNames, keep(s.slice(n, slash > 0 ? slash : end)));
      }
    } else if (c === 80 && within(s, "P2", t, end)) conn.p2p++;
    else if (c === 83 && within(s, "SH", t, end)) conn.shm++;
    else if (c === 100 && within(s, "direct shared memory", t, end))
      conn.shm++;
    else conn.other++;
  }
  nextGdr = -1;
  lineStart = -1;
  lastHost = "";
  /**
   * Adds the host of a `host:pid:tid [dev] NCCL …` line starting at `p` to the hosts seen, and returns it ("" when the
   * line has no such prefix). The common case — the same host as the line before — allocates nothing.
   */
  noteHost(s, p) {
    const last = this.lastHost;
    if (last !== "" && s.startsWith(last, p) && s.charCodeAt(p + last.length) === 58) return last;
    let colon = -1;
    for (let i = p; i < s.length && i - p < 256; i++) {
      const c = s.charCodeAt(i);
      if (c === 58) {
        colon = i;
        break;
      }
      if (c === 32 || c === 10) return "";
    }
    const after = s.charCodeAt(colon + 1);
    if (colon <= p || !(isDigit(after) || after === 88 || after === 120)) return "";
    this.lastHost = keep(s.slice(p, colon));
    if (this.st.hosts.size < MAX_KEYS) this.st.hosts.add(this.lastHost);
    return this.lastHost;
  }
  netLine(s, p, k, msg, end) {
    const st = this.st;
    this.noteHost(s, p);
    const socket = s.startsWith("NET/Socket", msg);
    if (socket || s.startsWith("NET/IB : Using ", msg) || s.startsWith("NET/IB: Using ", msg)) {
      let semi = indexInLine(s, "; OOB ", msg, end);
      if (semi < 0) semi = end;
      else this.oob(s, semi + 6, end);
      const last = this.lastList;
      if (last !== null && semi - msg === last.length && s.startsWith(last, msg)) {
        bump(st.deviceLists, this.lastListNames);
        return;
      }
      const list = keep(s.slice(msg, semi));
      this.lastList = list;
      this.lastListNames = keep(this.devicesOf(list, socket));
      bump(st.deviceLists, this.lastListNames);
      return;
    }
    if (s.startsWith("NET/IB: [", msg) || s.startsWith("NET/IB : [", msg)) {
      this.nicSpeed(s, p, msg, end);
      return;
    }
    if (s.startsWith("NET/IB : No device found", msg) || s.startsWith("NET/IB: No device found", msg)) {
      st.noDeviceFound++;
      this.addWarning(s.slice(msg, end), hostOf(processKey(s, p, k)));
      return;
    }
    if (s.startsWith("NET/IB : GPU Direct RDMA Disabled for HCA", msg) || s.startsWith("NET/IB: GPU Direct RDMA Disabled for HCA", msg)) {
      this.addWarning(s.slice(msg, end), hostOf(processKey(s, p, k)));
    }
  }
  /** `NET/IB: [3] mlx5_4:uverbs4:1/RoCE provider=Mlx5 speed=200000 context=0x… pciPath=… ar=0` (NCCL ≥ 2.20). */
  nicSpeed(s, p, msg, end) {
    const m = /\] ([^:\s]+):[^:\s]*:(\d+)\/(?:IB|RoCE) .*?\bspeed=(\d+)/.exec(s.slice(msg, end));
    if (!m) return;
    const host = this.noteHost(s, p);
    const key = `${host}	${m[1]}:${m[2]}`;
    if (!this.st.nicSpeeds.has(key)) setCapped(this.st.nicSpeeds, keep(key), Number(m[3]));
  }
  lastList = null;
  lastListNames = "";
  devicesOf(list, socket) {
    const st = this.st;
    const names = [];
    if (socket) {
      for (const m of list.matchAll(/\[\d+\]([^:\s[\]]+):/g)) {
        names.push(m[1]);
        setCapped(st.devices, `${m[1]}/Socket`, { name: m[1], port: 0, linkLayer: "Socket" });
      }
      return `socket:${names.join(",")}`;
    }
    for (const m of list.matchAll(/([A-Za-z0-9_.-]+):(\d+)(?::\d*)*\/(IB|RoCE)/g)) {
      names.push(`${m[1]}:${m[2]}`);
      const linkLayer = m[3] === "IB" ? "IB" : "RoCE";
      setCapped(st.devices, `${m[1]}:${m[2]}`, { name: m[1], port: Number(m[2]), linkLayer });
    }
    return names.join(",");
  }
  /** `; OOB eth0:10.0.60.3<0>` → eth0. */
  oob(s, at, end) {
    let colon = indexInLine(s, ":", at, end);
    if (colon < 0) colon = end;
    const last = this.lastOob;
    if (last !== null && colon - at === last.length && s.startsWith(last, at)) {
      bump(this.st.oob, last);
      return;
    }
    this.lastOob = keep(s.slice(at, colon));
    bump(this.st.oob, this.lastOob);
  }
  lastOob = null;
  envLine(s, msg, end) {
    const m = /^(NCCL_\w+) set (?:by environment )?to (.*)$/.exec(s.slice(msg, end));
    if (m && !this.st.env.has(m[1])) setCapped(this.st.env, m[1], m[2].trim().replace(/\.$/, ""));
    if (m && m[1] === "NCCL_IB_DISABLE" && /^1\b/.test(m[2].trim())) this.addWarning(s.slice(msg, end), "");
  }
  version(s, at, end, key) {
    const m = /^NCCL version (\d+\.\d+\.\d+[^\s+]*)/.exec(s.slice(at, end));
    if (!m) return;
    const tag = key.replace(COLOUR, "").trim();
    const k = (TIME_STAMP.test(tag) ? "" : tag) || `unattributed#${this.st.unattributed++}`;
    setCapped(this.st.versionOf, k, m[1]);
  }
  commSummary(s, msg, end) {
    const st = this.st;
    const nn = intAfter(s, " nNodes ", msg, end);
    if (nn > st.nNodes) st.nNodes = nn;
    const lr = intAfter(s, " localRanks ", msg, end);
    if (lr > st.localRanks) st.localRanks = lr;
    const nr = intAfter(s, " nRanks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
  }
  initComplete(s, msg, end) {
    const st = this.st;
    st.initComplete++;
    if (this.lineStart >= 0) this.noteHost(s, this.lineStart);
    const rank = intAfter(s, " rank ", msg - 1, end);
    const nranks = intAfter(s, " nranks ", msg, end);
    if (rank < 0 || nranks < 0) return;
    if (nranks > st.nranks) st.nranks = nranks;
    if (st.completedRanks.size < 1 << 20) st.completedRanks.add(rank);
  }
  warn(s, start, p, msg, end) {
    const sp = indexInLine(s, " ", p, end);
    const key = processKey(s, p, sp < 0 ? end : sp, end);
    this.addWarning(s.slice(msg, end), hostOf(key), s.slice(start, end));
  }
  failure(s, start, end) {
    this.addWarning(s.slice(start, end).trim(), "");
  }
  addWarning(text, host, sample = text) {
    const cause = causeOf(text, sample);
    let agg = this.st.warnings.get(cause.id);
    if (!agg) {
      agg = {
        id: cause.id,
        severity: cause.severity,
        cause: cause.cause,
        fix: cause.fix,
        followOn: cause.followOn === true,
        count: 0,
        samples: [],
        hosts: /* @__PURE__ */ new Set()
      };
      this.st.warnings.set(cause.id, agg);
    }
    agg.count++;
    if (agg.samples.length < MAX_SAMPLES) agg.samples.push(sample.length > 400 ? `${sample.slice(0, 400)}\u2026` : sample);
    if (host && agg.hosts.size < 64) agg.hosts.add(host);
  }
  get current() {
    return this.chunk;
  }
};

export {
  indexInLine,
  keep,
  skipPrefixes,
  LineScanner
};
