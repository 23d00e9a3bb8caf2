/**
 * A cache of answers that do not change once given (a schema by id, the id a subject gives a schema),
 * that also shares a lookup in flight: every caller asking for a key while its first request runs gets
 * that request's outcome, so a batch of records with one new schema id costs one request. A failed
 * lookup is forgotten, and the next ask for its key tries again.
 *
 * At most `capacity` keys are kept, the oldest dropped first: a process meets few schemas (those of its
 * topics), so the bound only matters for one that keeps registering new ones.
 */
export class SharedLookups<K, V> {
  private readonly entries = new Map<K, Promise<V>>();

  constructor(private readonly capacity: number) {}

  get(key: K, lookup: () => Promise<V>): Promise<V> {
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    const pending = lookup();
    this.entries.set(key, pending);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    pending.catch(() => {
      if (this.entries.get(key) === pending) this.entries.delete(key);
    });
    return pending;
  }

  get size(): number {
    return this.entries.size;
  }
}
