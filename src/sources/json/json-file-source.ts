import { z } from "zod";
import { BatchLog } from "../../checkpoint/batch-log.js";
import type { FileSplit } from "../file/file-split.js";
import { listFiles, planFileSplits } from "../file/index.js";
import type { StreamSource } from "../source.js";
import type { JsonReadOptions } from "./json-desc.js";
import { jsonKind } from "./json-kind.js";

interface SeenFile {
  readonly path: string;
  readonly size: number;
}

/**
 * JSON-lines files in a folder, as Spark's file stream source: each trigger admits files it has
 * not seen (oldest first, at most `maxFilesPerTrigger`), recording them in its own log under the
 * checkpoint (`sources/<i>/<n>`), so a restarted query reads exactly the same files per batch.
 * The offset is the number of log entries.
 */
/** The offset: how many entries the source's log has (batches that admitted files). */
const logLength = z.number().int().min(0);

export class JsonFileStreamSource implements StreamSource<number, FileSplit> {
  readonly description: string;
  private readonly log: BatchLog<SeenFile[]>;
  private seen: Set<string> | null = null;
  private entries = new Map<number, SeenFile[]>();

  constructor(
    private readonly dir: string,
    private readonly options: JsonReadOptions,
    logDir: string,
  ) {
    this.description = jsonKind.describe({ format: "json", path: dir, fields: [], options });
    this.log = new BatchLog(logDir);
  }

  parseOffset(value: unknown): number {
    return logLength.parse(value);
  }

  initialOffset(): number {
    return 0;
  }

  private async load(): Promise<Set<string>> {
    if (this.seen) return this.seen;
    const seen = new Set<string>();
    for (const id of await this.log.ids()) {
      const files = (await this.log.get(id))!;
      this.entries.set(id, files);
      for (const f of files) seen.add(f.path);
    }
    this.seen = seen;
    return seen;
  }

  private async newFiles(): Promise<SeenFile[]> {
    const seen = await this.load();
    const files = await listFiles(this.dir, { pathGlobFilter: this.options.pathGlobFilter });
    return files.filter((f) => !seen.has(f.path)).map((f) => ({ path: f.path, size: f.size }));
  }

  async latestOffset(from: number): Promise<number> {
    await this.load();
    // A batch planned before a crash already has its entry: reuse it so the re-run reads the same files.
    if (this.entries.has(from + 1)) return from + 1;
    const fresh = await this.newFiles();
    if (fresh.length === 0) return from;
    const admitted = this.options.maxFilesPerTrigger ? fresh.slice(0, this.options.maxFilesPerTrigger) : fresh;
    if (!(await this.log.add(from + 1, admitted))) {
      this.entries.set(from + 1, (await this.log.get(from + 1))!);
    } else {
      this.entries.set(from + 1, admitted);
    }
    for (const f of this.entries.get(from + 1)!) this.seen!.add(f.path);
    return from + 1;
  }

  async reportLatestOffset(): Promise<number> {
    await this.load();
    const pending = (await this.newFiles()).length;
    const logged = this.entries.size;
    return pending > 0 ? logged + 1 : logged;
  }

  async planSplits(start: number, end: number): Promise<readonly FileSplit[]> {
    await this.load();
    const files: SeenFile[] = [];
    for (let id = start + 1; id <= end; id++) files.push(...(this.entries.get(id) ?? []));
    return planFileSplits(files, this.options.maxPartitionBytes);
  }

  commit(): void {}

  async stop(): Promise<void> {}
}
