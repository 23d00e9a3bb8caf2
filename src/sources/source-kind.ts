import type { Trigger } from "../config/options.js";
import type { Fields } from "../types/dtype.js";
import type { SourceDesc } from "./source-desc.js";

/**
 * What the planner and the query launcher know of a kind of source, from its description alone
 * (no connections, no I/O): each source folder exports one, and `source-kinds.ts` lists them.
 */
export interface SourceKind<D extends SourceDesc> {
  /** Spark's description of the source: progress's `sources[].description` and checkpoint metadata. */
  describe(desc: D): string;
  /**
   * Whether a checkpoint whose metadata describes a source as `recorded` was reading the source
   * `desc` reads, so that a query reading `desc` may continue it. Without it, the descriptions
   * must be equal. A source's columns are never part of the answer: as in Spark, a query may
   * restart reading columns it did not read before, when its stateful operators' state stays
   * compatible (checked on its own).
   */
  continues?(recorded: string, desc: D): boolean;
  /** The source decoding only the `needed` columns where it can (Spark's schema pruning); `desc` itself otherwise. */
  narrow(desc: D, needed: ReadonlySet<string>): D;
  /** Why a streaming query with `trigger` cannot read this source, or null when it can. */
  streamingRefusal(desc: D, trigger: Trigger): string | null;
  /**
   * Present on the kinds real-time mode can read (Spark's SupportsRealTimeMode): why it cannot
   * read `desc` as configured, or null. Absent: the kind has no real-time reader.
   */
  realTimeRefusal?(desc: D): string | null;
}

/**
 * The refusal of a `latencyTarget` trigger by a source whose batches cannot be sized by rows
 * (`what` names it, `instead` says what sizes its batches); null for any other trigger.
 */
export function unsizableBatchesRefusal(trigger: Trigger, what: string, instead: string): string | null {
  if (trigger.kind !== "latencyTarget") return null;
  return `a latencyTarget trigger sizes each batch by rows, and ${what} cannot limit a batch's rows: read Kafka or a memory stream with it, or ${instead}`;
}

/**
 * A JSON record schema narrowed to the fields read. Narrowing changes which records count as
 * malformed (a wrong type in a field nobody reads no longer makes the record malformed), so, like
 * Spark, only PERMISSIVE reads are narrowed, and only when no column collects corrupt records.
 * A field that is needed is always decoded; JSON syntax is checked whole either way.
 */
export function narrowRecordFields(fields: Fields, needed: ReadonlySet<string>, corruptColumn: string): Fields {
  if (fields.some((f) => f.name === corruptColumn)) return fields;
  const kept = fields.filter((f) => needed.has(f.name));
  return kept.length === fields.length || kept.length === 0 ? fields : kept;
}
