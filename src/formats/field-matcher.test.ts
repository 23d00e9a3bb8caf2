import { describe, expect, it } from "vitest";
import { FieldMatcher, MAX_LEARNED_KEYS, NO_FIELD } from "./field-matcher.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("FieldMatcher", () => {
  it("finds fields by their key bytes and nothing for other keys or fields not read from keys", () => {
    const matcher = new FieldMatcher(["id", null, "name"]);
    const key = bytes("xidnamecorrupt");
    expect(matcher.match(key, 1, 3)).toBe(0);
    expect(matcher.match(key, 3, 7)).toBe(2);
    expect(matcher.match(key, 7, 14)).toBe(NO_FIELD);
    expect(matcher.fieldCount).toBe(3);
  });

  it("learns unread keys as indices after the fields, found by match and guessed by keyAt like fields", () => {
    const matcher = new FieldMatcher(["id", "name"]);
    const record = bytes('{"page":1,"ip":2}');
    expect(matcher.learn(record, 2, 6)).toBe(2);
    expect(matcher.learn(record, 11, 13)).toBe(3);
    expect(matcher.match(bytes("page"), 0, 4)).toBe(2);
    expect(matcher.match(bytes("ip"), 0, 2)).toBe(3);
    expect(matcher.match(bytes("id"), 0, 2)).toBe(0);
    expect(matcher.keyAt(2, record, 1, record.length)).toBe(true);
    expect(matcher.nameLength(2)).toBe(4);
    expect(matcher.keyAt(3, record, 10, record.length)).toBe(true);
    expect(matcher.keyAt(3, record, 1, record.length)).toBe(false);
    // The key's closing quote must lie before the record's end.
    expect(matcher.keyAt(2, record, 1, 6)).toBe(false);
  });

  it(`learns at most ${MAX_LEARNED_KEYS} keys, long ones included, and keeps finding them and the fields`, () => {
    const matcher = new FieldMatcher(["id"]);
    const names = Array.from({ length: MAX_LEARNED_KEYS + 5 }, (_, i) => `key-${i}-${"x".repeat(i * 3)}`);
    const learned = names.map((n) => matcher.learn(bytes(n), 0, bytes(n).length));
    expect(learned.slice(0, MAX_LEARNED_KEYS)).toEqual(Array.from({ length: MAX_LEARNED_KEYS }, (_, i) => i + 1));
    expect(learned.slice(MAX_LEARNED_KEYS)).toEqual([NO_FIELD, NO_FIELD, NO_FIELD, NO_FIELD, NO_FIELD]);
    names.forEach((n, i) => expect(matcher.match(bytes(n), 0, bytes(n).length)).toBe(i < MAX_LEARNED_KEYS ? i + 1 : NO_FIELD));
    expect(matcher.match(bytes("id"), 0, 2)).toBe(0);
  });
});
