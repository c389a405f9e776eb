export {
  DEFAULT_TOLERANCE,
  type JudgeOptions,
  judgePairs,
  type PairMeasurement,
  type PairsReport,
  pairFromFileName,
} from "./judge.js";
export { renderPairRounds, renderPairsReport } from "./render.js";
export { type PairRound, pairRounds } from "./schedule.js";
