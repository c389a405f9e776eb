// src/nccl/log/state.ts
var MAX_SAMPLES = 3;
var MAX_KEYS = 4096;
var LogState = class {
  lines = 0;
  ncclLines = 0;
  binaryLines = 0;
  cutLine = null;
  /** Process key (`host:pid`, or a launcher tag for bare lines) → NCCL version. */
  versionOf = /* @__PURE__ */ new Map();
  networkOf = /* @__PURE__ */ new Map();
  /** Distinct device lists (`mlx5_1:1,mlx5_2:1`, `socket:eth0`) → lines that printed them. */
  deviceLists = /* @__PURE__ */ new Map();
  hosts = /* @__PURE__ */ new Set();
  devices = /* @__PURE__ */ new Map();
  /** `host\tmlx5_4:1` → the speed NCCL found for that port, in Mb/s (`NET/IB: [3] mlx5_4:uverbs4:1/RoCE … speed=200000`). */
  nicSpeeds = /* @__PURE__ */ new Map();
  oob = /* @__PURE__ */ new Map();
  bootstrap = /* @__PURE__ */ new Map();
  env = /* @__PURE__ */ new Map();
  conn = { net: 0, netGdr: 0, p2p: 0, shm: 0, socket: 0, other: 0 };
  /** Network connections by transport: the internal IB one counted apart (the common case), others by name. */
  ibConns = 0;
  netNames = /* @__PURE__ */ new Map();
  warnings = /* @__PURE__ */ new Map();
  gdrDisabledSamples = [];
  gdrDisabled = 0;
  noDeviceFound = 0;
  initComplete = 0;
  completedRanks = /* @__PURE__ */ new Set();
  nranks = 0;
  nNodes = 0;
  localRanks = 0;
  unattributed = 0;
};
function bump(m, key, by = 1) {
  const cur = m.get(key);
  if (cur !== void 0) m.set(key, cur + by);
  else if (m.size < MAX_KEYS) m.set(key, by);
}
function setCapped(m, key, value) {
  if (m.has(key) || m.size < MAX_KEYS) m.set(key, value);
}
function unionCapped(a, b, cap) {
  for (const v of b) {
    if (a.size >= cap) break;
    a.add(v);
  }
  return a;
}
function mergeInto(a, b) {
  a.lines += b.lines;
  a.ncclLines += b.ncclLines;
  a.binaryLines += b.binaryLines;
  a.cutLine = b.cutLine;
  for (const [k, v] of b.versionOf) {
    const key = k.startsWith("unattributed#") ? `unattributed#${a.unattributed + Number(k.slice(13))}` : k;
    setCapped(a.versionOf, key, v);
  }
  a.unattributed += b.unattributed;
  for (const [k, v] of b.networkOf) setCapped(a.networkOf, k, v);
  for (const [k, v] of b.deviceLists) bump(a.deviceLists, k, v);
  unionCapped(a.hosts, b.hosts, MAX_KEYS);
  for (const [k, v] of b.devices) setCapped(a.devices, k, v);
  for (const [k, v] of b.nicSpeeds) if (!a.nicSpeeds.has(k)) setCapped(a.nicSpeeds, k, v);
  for (const [k, v] of b.oob) bump(a.oob, k, v);
  for (const [k, v] of b.bootstrap) bump(a.bootstrap, k, v);
  for (const [k, v] of b.env) if (!a.env.has(k)) setCapped(a.env, k, v);
  for (const k of Object.keys(a.conn)) a.conn[k] += b.conn[k];
  a.ibConns += b.ibConns;
  for (const [k, v] of b.netNames) bump(a.netNames, k, v);
  for (const [id, w] of b.warnings) {
    const mine = a.warnings.get(id);
    if (!mine) {
      a.warnings.set(id, { ...w, samples: [...w.samples], hosts: new Set(w.hosts) });
      continue;
    }
    mine.count += w.count;
    for (const s of w.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
    unionCapped(mine.hosts, w.hosts, 64);
  }
  for (const s of b.gdrDisabledSamples) if (a.gdrDisabledSamples.length < MAX_SAMPLES) a.gdrDisabledSamples.push(s);
  a.gdrDisabled += b.gdrDisabled;
  a.noDeviceFound += b.noDeviceFound;
  a.initComplete += b.initComplete;
  unionCapped(a.completedRanks, b.completedRanks, 1 << 20);
  a.nranks = Math.max(a.nranks, b.nranks);
  a.nNodes = Math.max(a.nNodes, b.nNodes);
  a.localRanks = Math.max(a.localRanks, b.localRanks);
  return a;
}

export {
  MAX_SAMPLES,
  MAX_KEYS,
  LogState,
  bump,
  setCapped,
  mergeInto
};
