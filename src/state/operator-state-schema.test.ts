import { describe, expect, it } from "vitest";
import { stateSchemaChanges, type OperatorStateSchema, type StateField, type StoreSchema } from "./operator-state-schema.js";

/** Spark's state schema compatibility rule (StateSchemaCompatibilityCheckerSuite's cases, on Sluice's column types). */

const field = (name: string, type: string, nullable = false): StateField => ({ name, type, nullable });
const op = (...stores: StoreSchema[]): OperatorStateSchema => ({ operator: "stateStoreSave", stores });
const store = (keys: StateField[], values: StateField[] | null, name = "default"): StoreSchema => ({ name, keys, values });

const keys = [field("page", "string"), field("window", "window")];
const values = [field("count#count", "float64"), field("v#value", "int32", true)];

describe("state schema compatibility on restart", () => {
  it("accepts the same schema", () => {
    expect(stateSchemaChanges(op(store(keys, values)), op(store(keys, values)))).toEqual([]);
  });

  it("compares columns by position: renamed keys and values keep the state", () => {
    const renamed = op(store([field("url", "string"), field("w", "window")], [field("n#count", "float64"), field("m#value", "int32", true)]));
    expect(stateSchemaChanges(op(store(keys, values)), renamed)).toEqual([]);
  });

  it("lets a nullable column become non-nullable, not the reverse", () => {
    const stored = op(store([field("page", "string", true)], null));
    expect(stateSchemaChanges(stored, op(store([field("page", "string")], null)))).toEqual([]);
    expect(stateSchemaChanges(op(store([field("page", "string")], null)), stored)).toEqual([
      "its key columns were [page: string] and are [page: string (nullable)]: column 1 (page) is nullable, was not",
    ]);
  });

  it("refuses a key column of another type, naming it", () => {
    const changed = op(store([field("page", "int32"), field("window", "window")], values));
    expect(stateSchemaChanges(op(store(keys, values)), changed)).toEqual([
      "its key columns were [page: string, window: window] and are [page: int32, window: window]: column 1 (page) is int32, was string",
    ]);
  });

  it("refuses key columns added or removed", () => {
    const more = op(store([...keys, field("user", "string")], values));
    expect(stateSchemaChanges(op(store(keys, values)), more)).toEqual([
      "its key columns were [page: string, window: window] and are [page: string, window: window, user: string]: 3 column(s) where the state has 2",
    ]);
  });

  it("refuses value columns of other types, naming each", () => {
    const changed = op(store(keys, [field("count#count", "int64"), field("v#value", "string", true)]));
    expect(stateSchemaChanges(op(store(keys, values)), changed)).toEqual([
      "its value columns were [count#count: float64, v#value: int32 (nullable)] and are [count#count: int64, v#value: string (nullable)]: " +
        "column 1 (count#count) is int64, was float64; column 2 (v#value) is string, was int32",
    ]);
  });

  it("compares keys alone where the values are not compared (a plain deduplication's)", () => {
    expect(stateSchemaChanges(op(store(keys, null)), op(store(keys, values)))).toEqual([]);
    expect(stateSchemaChanges(op(store(keys, values)), op(store(keys, null)))).toEqual([]);
  });

  it("names the store of an operator that keeps several (a join's sides)", () => {
    const join = (rightKey: string) => op(store([field("key", "int32")], [field("key", "int32")], "left"), store([field("key", rightKey)], [field("key", rightKey)], "right"));
    expect(stateSchemaChanges(join("int32"), join("int64"))).toEqual([
      "its right key columns were [key: int32] and are [key: int64]: column 1 (key) is int64, was int32",
      "its right value columns were [key: int32] and are [key: int64]: column 1 (key) is int64, was int32",
    ]);
  });
});
