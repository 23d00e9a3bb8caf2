export { decodeJsonLines } from "./json-lines.js";
export type { DecodeOptions, DecodeResult } from "./json-lines.js";
export { decodeJsonValues } from "./json-values.js";
export type { JsonValuesOptions, JsonValuesResult } from "./json-values.js";
export { parseIsoTimestamp } from "./iso-timestamp.js";
