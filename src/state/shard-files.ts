import * as path from "node:path";
import { CheckpointError } from "../errors/errors.js";
import { listDirectorySync } from "../checkpoint/atomic-file.js";
import type { StateFileKind } from "./state-file.js";

const FILE_NAME = /^(\d+)\.(delta|snapshot)$/;

export interface ShardFile {
  readonly version: number;
  readonly kind: StateFileKind;
}

/** How to load one version: a snapshot (or the empty state) and the deltas after it, in order. */
export interface LoadPlan {
  readonly snapshot: number | null;
  readonly deltas: readonly number[];
}

/**
 * The state files of one (operator, partition) folder, `<version>.delta` and
 * `<version>.snapshot`: listed once, then kept up to date by the writer, which is the only one
 * (a checkpoint has one running query). Plans which files load a version and which files no
 * retained version needs.
 */
export class ShardFiles {
  /** Delta versions -> the id of the write that made them (0: found on disk). */
  private readonly deltas = new Map<number, number>();
  private readonly snapshots = new Set<number>();
  private writes = 0;

  constructor(readonly dir: string) {
    for (const name of listDirectorySync(dir)) {
      const m = FILE_NAME.exec(name);
      if (!m) continue;
      if (m[2] === "delta") this.deltas.set(Number(m[1]), 0);
      else this.snapshots.add(Number(m[1]));
    }
  }

  pathOf(version: number, kind: StateFileKind): string {
    return path.join(this.dir, `${version}.${kind}`);
  }

  has(version: number): boolean {
    return this.deltas.has(version) || this.snapshots.has(version);
  }

  hasSnapshot(version: number): boolean {
    return this.snapshots.has(version);
  }

  /** Versions with a file, ascending. */
  versions(): number[] {
    return [...new Set([...this.deltas.keys(), ...this.snapshots])].sort((a, b) => a - b);
  }

  latest(): number {
    const versions = this.versions();
    return versions.length ? versions[versions.length - 1]! : -1;
  }

  /** Every file, by version then delta before snapshot. */
  files(): ShardFile[] {
    const out: ShardFile[] = [];
    for (const version of this.versions()) {
      if (this.deltas.has(version)) out.push({ version, kind: "delta" });
      if (this.snapshots.has(version)) out.push({ version, kind: "snapshot" });
    }
    return out;
  }

  /** Records a delta just written; returns its write id (which tells a rewrite of the version apart). */
  addDelta(version: number): number {
    this.deltas.set(version, ++this.writes);
    return this.writes;
  }

  addSnapshot(version: number): void {
    this.snapshots.add(version);
  }

  /** The write id of a version's delta, undefined when it has none. */
  deltaWrite(version: number): number | undefined {
    return this.deltas.get(version);
  }

  forget(file: ShardFile): void {
    if (file.kind === "delta") this.deltas.delete(file.version);
    else this.snapshots.delete(file.version);
  }

  /** Files of versions after `base`. */
  filesAfter(base: number): ShardFile[] {
    return this.files().filter((f) => f.version > base);
  }

  /**
   * The newest snapshot at or before `version` and the deltas after it. Without such a snapshot,
   * every delta up to `version` (the first of them must build on the empty state, which reading
   * checks). Throws when the delta of `version` itself is missing.
   */
  loadPlan(version: number): LoadPlan {
    if (this.snapshots.has(version)) return { snapshot: version, deltas: [] };
    if (!this.deltas.has(version)) throw new CheckpointError(`state file ${this.pathOf(version, "delta")} is missing`);
    const snapshot = this.newestSnapshotAtOrBefore(version);
    const deltas = [...this.deltas.keys()].filter((v) => v > (snapshot ?? -Infinity) && v <= version).sort((a, b) => a - b);
    return { snapshot, deltas };
  }

  /**
   * Deltas up to `version` after its newest snapshot (all of them without one), or after
   * `pendingSnapshot`, a snapshot being written, when that is newer.
   */
  deltasSinceSnapshot(version: number, pendingSnapshot: number | null): number {
    const floor = Math.max(this.newestSnapshotAtOrBefore(version) ?? -Infinity, pendingSnapshot ?? -Infinity);
    let n = 0;
    for (const v of this.deltas.keys()) if (v > floor && v <= version) n++;
    return n;
  }

  /**
   * Files no version from `latest - minBatchesToRetain` on needs: everything before the newest
   * snapshot at or before that version, and that snapshot's own delta.
   */
  unneeded(latest: number, minBatchesToRetain: number): ShardFile[] {
    const floor = this.newestSnapshotAtOrBefore(latest - minBatchesToRetain);
    if (floor === null) return [];
    return this.files().filter((f) => f.version < floor || (f.version === floor && f.kind === "delta"));
  }

  private newestSnapshotAtOrBefore(version: number): number | null {
    let best: number | null = null;
    for (const s of this.snapshots) if (s <= version && (best === null || s > best)) best = s;
    return best;
  }
}
