export { decodeJsonLines } from "./json-lines.js";
export type { DecodeOptions, DecodeResult } from "./json-lines.js";
export { parseIsoTimestamp } from "./iso-timestamp.js";
