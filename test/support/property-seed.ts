/** Every fast-check property of a test run starts from the run's seed (vitest.config.ts): reproducible per commit. */
import fc from "fast-check";

const seed = Number(process.env.FC_SEED);
if (Number.isFinite(seed)) fc.configureGlobal({ seed });
