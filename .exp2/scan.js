import {
  LineScanner,
  indexInLine,
  keep,
  skipPrefixes
} from "./chunk-H6ZNBHOX.js";
import "./chunk-B5JLMUH7.js";
export {
  LineScanner,
  indexInLine,
  keep,
  skipPrefixes
};
