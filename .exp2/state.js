import {
  LogState,
  MAX_KEYS,
  MAX_SAMPLES,
  bump,
  mergeInto,
  setCapped
} from "./chunk-B5JLMUH7.js";
export {
  LogState,
  MAX_KEYS,
  MAX_SAMPLES,
  bump,
  mergeInto,
  setCapped
};
