import { BatchLog } from "../../checkpoint/batch-log.js";
import type { JsonReadOptions } from "../../plan/logical.js";
import type { InputSplit } from "../../workers/protocol.js";
import { listFiles, planFileSplits } from "../file/index.js";
import type { Offset, StreamSource } from "../source.js";

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
export class JsonFileStreamSource implements StreamSource {
  readonly description: string;
  private readonly log: BatchLog<SeenFile[]>;
  private seen: Set<string> | null = null;
  private entries = new Map<number, SeenFile[]>();

  constructor(
    private readonly dir: string,
    private readonly options: JsonReadOptions & { readonly maxPartitionBytes: number },
    logDir: string,
  ) {
    this.description = `FileStreamSource[${dir}]`;
    this.log = new BatchLog(logDir);
  }

  initialOffset(): Offset {
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

  async latestOffset(start: Offset): Promise<Offset> {
    const from = start as number;
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

  async reportLatestOffset(): Promise<Offset> {
    await this.load();
    const pending = (await this.newFiles()).length;
    const logged = this.entries.size;
    return pending > 0 ? logged + 1 : logged;
  }

  async planSplits(start: Offset, end: Offset): Promise<readonly InputSplit[]> {
    await this.load();
    const files: SeenFile[] = [];
    for (let id = (start as number) + 1; id <= (end as number); id++) files.push(...(this.entries.get(id) ?? []));
    return planFileSplits(files, this.options.maxPartitionBytes);
  }

  commit(): void {}

  async stop(): Promise<void> {}
}
