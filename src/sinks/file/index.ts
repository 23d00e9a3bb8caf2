export { FileSink } from "./file-sink.js";
export type { FileSinkConfig } from "./file-sink.js";
export { committedFiles } from "./committed-files.js";
export type { CommittedFile } from "./committed-files.js";
export { MANIFEST_DIR, ManifestLog } from "./manifest-log.js";
export type { ManifestEntry, ManifestFile } from "./manifest-log.js";
export { partFileName } from "./part-file-name.js";
