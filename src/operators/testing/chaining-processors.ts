// Stateful processors whose rows a stateful operator after transformWithState reads: modules the
// engine imports by URL and export name, as users' processors are.
import type { StatefulProcessor, StatefulProcessorHandle } from "../stateful-processor.js";

type Event = { key: string; eventTime: Date };
type KeyEarliestCount = { key: string; outputEventTime: Date; count: number };

/**
 * Spark's TestStatefulProcessor (TransformWithStateChainingSuite): for each key with rows in the
 * batch, one row with the earliest event time among them and their number. It keeps no state.
 */
export class EarliestEventTime implements StatefulProcessor<{ key: string }, Event, KeyEarliestCount> {
  init(_handle: StatefulProcessorHandle): void {}

  handleInputRows(key: { key: string }, rows: readonly Event[]): KeyEarliestCount[] {
    const earliest = Math.min(...rows.map((r) => r.eventTime.getTime()));
    return [{ key: key.key, outputEventTime: new Date(earliest), count: rows.length }];
  }
}
