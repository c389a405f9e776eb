// Preloaded into a measured process (`node --import ./bench/cpu-report.mjs …`): prints its CPU time on exit,
// a figure that a loaded machine inflates far less than wall time.
process.on("exit", () => {
  const u = process.cpuUsage();
  process.stderr.write(`\nKUBE_RDMA_CPU_US ${u.user + u.system}\n`);
});
