// Preloaded into a measured process (`node --import ./bench/rss-report.mjs …`): prints its peak resident set size on
// exit, so a bench that runs the CLI behind a shell pipe still learns the CLI's own peak memory.
process.on("exit", () => {
  process.stderr.write(`\nKUBE_RDMA_MAXRSS_KB ${process.resourceUsage().maxRSS}\n`);
});
