/**
 * Finds which schema field a JSON key names, comparing UTF-8 bytes so that no key is ever turned
 * into a JavaScript string.
 *
 * Two ways in. Records of one stream nearly always list their keys in the same order, so the
 * decoder first asks `keyAt` whether the raw key at a position is the field that followed the
 * previous one last time: one pass over the key's bytes, with no scan before it. Otherwise the key
 * is scanned and looked up with `match`: names are hashed by (length, first byte, last byte)
 * into a small open-addressing table and a hit is confirmed byte by byte; unknown keys usually
 * miss on the first probe.
 *
 * A decoder may also `learn` keys that name no field (the record fields a query does not read).
 * A learned key gets an index of its own, at or after `fieldCount`, so it can take part in the
 * key-order guess too: a record's unread keys then cost one pass over their bytes, not a scan,
 * a hash and a probe each. At most `MAX_LEARNED_KEYS` are learned, so records whose keys never
 * repeat (objects used as maps) cannot grow the matcher.
 */

const encoder = new TextEncoder();

export const NO_FIELD = -1;
/** Unread keys a matcher learns at most; W1's input has five, wide event records a few dozen. */
export const MAX_LEARNED_KEYS = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function keyHash(src: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length === 0) return 0;
  const h = Math.imul(length, 0x9e3779b1) ^ Math.imul(src[start]!, 0x85ebca6b) ^ Math.imul(src[end - 1]!, 0xc2b2ae35);
  return (h ^ (h >>> 15)) >>> 0;
}

/** A name whose raw JSON key could differ from its bytes (it needs escaping) is never guessed. */
function needsEscaping(bytes: Uint8Array): boolean {
  return bytes.some((b) => b === QUOTE || b === BACKSLASH || b < 0x20);
}

export class FieldMatcher {
  /** The fields named at construction; learned keys come after them. */
  readonly fieldCount: number;
  /** Fields and learned keys so far. */
  private count: number;
  /** All names' UTF-8 bytes back to back; name f is `nameBytes[nameStarts[f], nameStarts[f + 1])`. */
  private nameBytes: Uint8Array;
  private readonly nameStarts: Int32Array;
  private readonly guessable: Uint8Array;
  /** Slot -> field index + 1 (0 = empty). */
  private readonly table: Int32Array;
  private readonly mask: number;

  /** `names[f]` is field f's name, or null for a field that is not read from JSON keys. */
  constructor(names: readonly (string | null)[]) {
    const encoded = names.map((n) => (n === null ? null : encoder.encode(n)));
    this.fieldCount = this.count = names.length;
    const capacity = names.length + MAX_LEARNED_KEYS;
    this.nameStarts = new Int32Array(capacity + 1);
    for (let f = 0; f < encoded.length; f++) this.nameStarts[f + 1] = this.nameStarts[f]! + (encoded[f]?.length ?? 0);
    this.nameBytes = new Uint8Array(Math.max(64, this.nameStarts[names.length]! * 2));
    this.guessable = new Uint8Array(capacity);
    encoded.forEach((bytes, f) => {
      if (bytes === null) return;
      this.nameBytes.set(bytes, this.nameStarts[f]!);
      this.guessable[f] = needsEscaping(bytes) ? 0 : 1;
    });

    // Sized for the learned keys too, so the table is never rebuilt and stays at most a quarter full.
    let size = 8;
    while (size < capacity * 4) size *= 2;
    this.table = new Int32Array(size);
    this.mask = size - 1;
    encoded.forEach((bytes, f) => {
      if (bytes === null) return;
      let slot = keyHash(this.nameBytes, this.nameStarts[f]!, this.nameStarts[f + 1]!) & this.mask;
      while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot] = f + 1;
    });
  }

  /**
   * True when the raw key starting with the quote at `p` is exactly field f's name (so the key
   * ends at `p + nameLength(f) + 1`), with its closing quote before `end`. False says nothing: the
   * key may still name f with escapes.
   */
  keyAt(f: number, src: Uint8Array, p: number, end: number): boolean {
    if (this.guessable[f] === 0) return false;
    const from = this.nameStarts[f]!;
    const length = this.nameStarts[f + 1]! - from;
    const bytes = this.nameBytes;
    const start = p + 1;
    if (start + length >= end) return false;
    for (let i = 0; i < length; i++) if (bytes[from + i] !== src[start + i]) return false;
    return src[start + length] === QUOTE;
  }

  /**
   * Gives the unescaped key `src[start, end)`, which `match` did not find, an index of its own (at
   * or after `fieldCount`), or NO_FIELD once `MAX_LEARNED_KEYS` are known.
   */
  learn(src: Uint8Array, start: number, end: number): number {
    if (this.count === this.fieldCount + MAX_LEARNED_KEYS) return NO_FIELD;
    const f = this.count++;
    const from = this.nameStarts[f]!;
    const length = end - start;
    if (from + length > this.nameBytes.length) {
      const grown = new Uint8Array(Math.max(this.nameBytes.length * 2, from + length));
      grown.set(this.nameBytes);
      this.nameBytes = grown;
    }
    this.nameBytes.set(src.subarray(start, end), from);
    this.nameStarts[f + 1] = from + length;
    this.guessable[f] = needsEscaping(src.subarray(start, end)) ? 0 : 1;
    let slot = keyHash(src, start, end) & this.mask;
    while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
    this.table[slot] = f + 1;
    return f;
  }

  nameLength(f: number): number {
    return this.nameStarts[f + 1]! - this.nameStarts[f]!;
  }

  /** The field named by the unescaped key `src[start, end)`, or NO_FIELD. */
  match(src: Uint8Array, start: number, end: number): number {
    const table = this.table;
    let slot = keyHash(src, start, end) & this.mask;
    for (;;) {
      const entry = table[slot]!;
      if (entry === 0) return NO_FIELD;
      if (this.sameBytes(entry - 1, src, start, end)) return entry - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  private sameBytes(f: number, src: Uint8Array, start: number, end: number): boolean {
    const from = this.nameStarts[f]!;
    const length = this.nameStarts[f + 1]! - from;
    if (length !== end - start) return false;
    const bytes = this.nameBytes;
    for (let i = 0; i < length; i++) if (bytes[from + i] !== src[start + i]) return false;
    return true;
  }
}
