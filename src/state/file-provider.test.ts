import * as arrow from "apache-arrow";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CheckpointError, OptionError, SluiceError } from "../errors/errors.js";
import { FileStateStoreProvider } from "./file-provider.js";
import { providerFixture } from "./provider-fixture.js";
import { decodeStateFile } from "./state-file.js";
import { KIND, SCHEMA, applyVersion, removeRow, rowsOf, setRow, stateFiles, tempFiles } from "./test-support.js";

type Rows = ReturnType<typeof rowsOf>;

const { temp, openProvider, shard } = providerFixture();

/** Commits versions `from + 1 ..= to` of the workload through one store; rows[v] is version v's table. */
async function commitVersions(provider: FileStateStoreProvider, to: number, from = 0): Promise<Rows[]> {
  const store = provider.load(0, from);
  const table = store.open(SCHEMA, KIND);
  const rows: Rows[] = [];
  rows[from] = rowsOf(table);
  for (let v = from + 1; v <= to; v++) {
    applyVersion(table, v);
    store.commit(v);
    rows[v] = rowsOf(table);
    await provider.flush();
  }
  return rows;
}

const text = new TextDecoder();

/** A delta file's base, removed keys and upserted rows, read straight from its Arrow columns. */
function readDelta(version: number) {
  const file = shard(`${version}.delta`);
  const { header, removals, table } = decodeStateFile(readFileSync(file), file, { kind: "delta", version });
  // A one-string key is [byte length + 1][UTF-8 bytes]: see kernels/hash-table-keys.ts.
  const keyAt = (i: number) => {
    const bytes = table.getChildAt(0)!.get(i) as Uint8Array;
    return text.decode(bytes.subarray(4, 4 + new DataView(bytes.buffer, bytes.byteOffset).getInt32(0, true) - 1));
  };
  const removed: string[] = [];
  const upserted: Rows = {};
  for (let i = 0; i < table.numRows; i++) {
    if (i < removals) removed.push(keyAt(i));
    else {
      const label = table.getChildAt(2)!.get(i) as Uint8Array | null;
      upserted[keyAt(i)] = [table.getChildAt(1)!.get(i) as number | null, label === null ? null : text.decode(label)];
    }
  }
  return { base: header.base, removed, upserted };
}

describe("FileStateStoreProvider: files", () => {
  it("writes a delta for every version and a snapshot once minDeltasForSnapshot deltas follow the last one", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 3 });
    const store = provider.load(0, 0);
    const table = store.open(SCHEMA, KIND);
    const layouts: string[][] = [];
    for (let v = 1; v <= 7; v++) {
      applyVersion(table, v);
      store.commit(v);
      await provider.flush();
      layouts.push(stateFiles(shard()));
    }
    expect(layouts).toEqual([
      ["1.delta"],
      ["1.delta", "2.delta"],
      ["1.delta", "2.delta", "3.delta", "3.snapshot"],
      ["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta"],
      ["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta"],
      ["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta", "6.delta", "6.snapshot"],
      ["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta", "6.delta", "6.snapshot", "7.delta"],
    ]);
    expect(tempFiles(shard())).toEqual([]);
    expect(provider.latestVersion(0)).toBe(7);
  });

  it("puts each operator and partition in its own folder", async () => {
    const provider = openProvider();
    for (const [op, part] of [[0, 0], [0, 1], [2, 0]] as const) {
      const store = provider.load(op, 0, part);
      setRow(store.open(SCHEMA, KIND), `${op}/${part}`, 1, null);
      store.commit(1);
    }
    await provider.flush();
    expect([stateFiles(temp.path("state", "0", "0")), stateFiles(temp.path("state", "0", "1")), stateFiles(temp.path("state", "2", "0"))]).toEqual([
      ["1.delta"],
      ["1.delta"],
      ["1.delta"],
    ]);
    expect(rowsOf(openProvider().load(0, 1, 1).open(SCHEMA, KIND))).toEqual({ "0/1": [1, null] });
  });

  it("a delta holds the keys removed in its version, then the rows upserted in it, nulls included", async () => {
    const provider = openProvider();
    const store = provider.load(0, 0);
    const t = store.open(SCHEMA, KIND);
    setRow(t, "a", 1, "first");
    setRow(t, "b", 2, null);
    setRow(t, "c", 3, "c");
    store.commit(1);
    setRow(t, "a", 5, "a-longer-label");
    removeRow(t, "b");
    // Removed and inserted again in one version: both.
    removeRow(t, "c");
    setRow(t, "c", null, "again");
    // Inserted and removed in one version: neither.
    setRow(t, "d", 4, "new");
    removeRow(t, "d");
    setRow(t, "e", 6, "");
    store.commit(2);
    // Nothing changed: an empty delta keeps the chain whole.
    store.commit(3);
    await provider.durable();
    expect([readDelta(1), readDelta(2), readDelta(3)]).toEqual([
      { base: null, removed: [], upserted: { a: [1, "first"], b: [2, null], c: [3, "c"] } },
      { base: 1, removed: ["b", "c"], upserted: { a: [5, "a-longer-label"], c: [null, "again"], e: [6, ""] } },
      { base: 2, removed: [], upserted: {} },
    ]);
    expect(rowsOf(openProvider().load(0, 3).open(SCHEMA, KIND))).toEqual({ a: [5, "a-longer-label"], c: [null, "again"], e: [6, ""] });
  });

  it("numbers versions either way: from -1 (batch N commits N) or from 0 (Spark: batch N commits N + 1)", async () => {
    const provider = openProvider();
    const fromMinusOne = provider.load(0, -1);
    setRow(fromMinusOne.open(SCHEMA, KIND), "a", 1, null);
    fromMinusOne.commit(0);
    await provider.durable();
    expect(stateFiles(shard())).toEqual(["0.delta"]);
    expect(readDelta(0).base).toBe(null);
    expect(rowsOf(openProvider().load(0, 0).open(SCHEMA, KIND))).toEqual({ a: [1, null] });
  });
});

describe("FileStateStoreProvider: memory", () => {
  it("keeps the version it just committed where a snapshot needs it or a few changes keep the copy current; one that changed most of the table is read back from its files", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 3 });
    const store = provider.load(0, 0);
    const t = store.open(SCHEMA, KIND);
    for (let i = 0; i < 40; i++) setRow(t, `k${i}`, i, null);
    // Version 1 changes the whole table and no snapshot is due: no copy is kept.
    store.commit(1);
    setRow(t, "k1", 100, null);
    store.commit(2);
    // Version 3's snapshot is due: the provider copies the table for it...
    setRow(t, "k2", 200, null);
    store.commit(3);
    await provider.flush();
    // ...and a commit of few changes applies them to that copy.
    removeRow(t, "k3");
    store.commit(4);
    await provider.durable();
    const version4 = rowsOf(t);
    const delta4 = readFileSync(shard("4.delta"));
    rmSync(shard("4.delta"));
    expect(rowsOf(provider.load(0, 4).open(SCHEMA, KIND))).toEqual(version4);
    writeFileSync(shard("4.delta"), delta4);
    // Version 5 changes every row: the copy is dropped, and version 5 lives in its files only.
    for (let i = 4; i < 40; i++) setRow(t, `k${i}`, i + 1000, null);
    store.commit(5);
    await provider.durable();
    rmSync(shard("5.delta"));
    expect(() => provider.load(0, 5).open(SCHEMA, KIND)).toThrow(`state file ${shard("5.delta")} is missing: it was deleted while this query used the checkpoint`);
  });

  it("keeps the latest table exactly as committed, whether it applies a commit's few changes or copies the table", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 3 });
    const store = provider.load(0, 0);
    const t = store.open(SCHEMA, KIND);
    for (let i = 0; i < 40; i++) setRow(t, `k${i}`, i, i % 3 ? `label ${i}` : null);
    const versions: ((t: typeof store.table) => void)[] = [
      () => {},
      // Few changes: a longer string, a removal, a new row.
      () => {
        setRow(t, "k1", 100, "a label much longer than the one before");
        removeRow(t, "k2");
        setRow(t, "new", 1, null);
      },
      // Removed and inserted again, values cleared; snapshot 3 is due and reads this table.
      () => {
        removeRow(t, "new");
        setRow(t, "new", 2, "back");
        setRow(t, "k3", null, null);
      },
      () => setRow(t, "k4", 4, "after the snapshot"),
      // Every row changes: a copy.
      () => {
        for (let i = 0; i < 40; i++) setRow(t, `k${i}`, -i, null);
      },
      () => removeRow(t, "k5"),
    ];
    for (const [i, change] of versions.entries()) {
      change(t);
      store.commit(i + 1);
      await provider.durable();
      expect(rowsOf(provider.load(0, i + 1).open(SCHEMA, KIND))).toEqual(rowsOf(t));
      if (i % 2 === 0) await provider.flush();
    }
    await provider.flush();
    const restarted = openProvider();
    expect(rowsOf(restarted.load(0, 6).open(SCHEMA, KIND))).toEqual(rowsOf(t));
    const final = rowsOf(t);
    expect([Object.keys(final).length, final.k1, final.k5, final.new]).toEqual([40, [-1, null], undefined, [2, "back"]]);
  });

  it("close() waits for maintenance and frees the provider; a closed provider refuses to load", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 1 });
    const store = provider.load(0, 0);
    setRow(store.open(SCHEMA, KIND), "a", 1, null);
    store.commit(1);
    await provider.close();
    expect(stateFiles(shard())).toEqual(["1.delta", "1.snapshot"]);
    expect(() => provider.load(0, 1)).toThrow(SluiceError);
    expect(() => provider.load(0, 1)).toThrow(/was closed: load the state from a new FileStateStoreProvider/);
    expect(() => store.commit(2)).toThrow(/was closed/);
  });
});

describe("FileStateStoreProvider: retention", () => {
  it("deletes exactly the files that no version from latest - minBatchesToRetain on needs", async () => {
    const provider = openProvider({ minBatchesToRetain: 3, minDeltasForSnapshot: 2 });
    const store = provider.load(0, 0);
    const table = store.open(SCHEMA, KIND);
    const rows: Rows[] = [{}];
    const layouts: string[][] = [];
    for (let v = 1; v <= 9; v++) {
      applyVersion(table, v);
      store.commit(v);
      rows[v] = rowsOf(table);
      await provider.flush();
      layouts.push(stateFiles(shard()));
    }
    expect(layouts).toEqual([
      ["1.delta"],
      ["1.delta", "2.delta", "2.snapshot"],
      ["1.delta", "2.delta", "2.snapshot", "3.delta"],
      ["1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot"],
      // Versions 2..5 must load: snapshot 2 and the deltas after it.
      ["2.snapshot", "3.delta", "4.delta", "4.snapshot", "5.delta"],
      ["2.snapshot", "3.delta", "4.delta", "4.snapshot", "5.delta", "6.delta", "6.snapshot"],
      ["4.snapshot", "5.delta", "6.delta", "6.snapshot", "7.delta"],
      ["4.snapshot", "5.delta", "6.delta", "6.snapshot", "7.delta", "8.delta", "8.snapshot"],
      ["6.snapshot", "7.delta", "8.delta", "8.snapshot", "9.delta"],
    ]);
    const restarted = openProvider();
    for (const v of [6, 7, 8, 9]) expect(rowsOf(restarted.load(0, v).open(SCHEMA, KIND))).toEqual(rows[v]);
    expect(() => restarted.load(0, 5)).toThrow(
      `state of operator 0 partition 0 has no version 5 in ${shard()} (versions kept: 6, 7, 8, 9); it was never committed or is older than minBatchesToRetain`,
    );
  });

  it("keeps every delta while no snapshot lets it go", async () => {
    const provider = openProvider({ minBatchesToRetain: 1, minDeltasForSnapshot: 100 });
    await commitVersions(provider, 5);
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "3.delta", "4.delta", "5.delta"]);
  });

  it("deletes the temp files that a process which crashed mid-write left, and loads as if they were not there", async () => {
    const provider = openProvider();
    const rows = await commitVersions(provider, 2);
    await provider.close();
    // A process that died between writing 3.delta's temp file and linking it.
    const leftover = shard(".3.delta.4242-0badf00d.1.tmp");
    writeFileSync(leftover, readFileSync(shard("2.delta")).subarray(0, 100));
    const restarted = openProvider();
    expect(restarted.latestVersion(0)).toBe(2);
    expect(rowsOf(restarted.load(0, 2).open(SCHEMA, KIND))).toEqual(rows[2]);
    const rerun = await commitVersions(restarted, 3, 2);
    expect(tempFiles(shard())).toEqual([]);
    expect(rowsOf(openProvider().load(0, 3).open(SCHEMA, KIND))).toEqual(rerun[3]);
  });
});

describe("FileStateStoreProvider: re-running a batch", () => {
  it("replaces the files that the abandoned run left for its version and later ones", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 2 });
    await commitVersions(provider, 4);
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot"]);
    // The commit log has batches up to version 2: the batch that committed 3 runs again, differently.
    const restarted = openProvider({ minDeltasForSnapshot: 2 });
    const store = restarted.load(0, 2);
    const table = store.open(SCHEMA, KIND);
    setRow(table, "rerun", 7, "second run");
    store.commit(3);
    await restarted.flush();
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "2.snapshot", "3.delta"]);
    expect(restarted.latestVersion(0)).toBe(3);
    const expected = rowsOf(table);
    expect(expected.rerun).toEqual([7, "second run"]);
    expect(rowsOf(openProvider().load(0, 3).open(SCHEMA, KIND))).toEqual(expected);
  });

  it("drops a snapshot of the abandoned version that was still being written", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 2 });
    await commitVersions(provider, 1);
    const first = provider.load(0, 1);
    setRow(first.open(SCHEMA, KIND), "first", 1, null);
    first.commit(2); // due for a snapshot
    await provider.durable();
    // Let maintenance start writing snapshot 2, then re-run version 2 before the write ends.
    await new Promise((resolve) => setImmediate(resolve));
    const rerun = provider.load(0, 1);
    const table = rerun.open(SCHEMA, KIND);
    setRow(table, "second", 2, null);
    rerun.commit(2);
    await provider.flush();
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta"]);
    expect(tempFiles(shard())).toEqual([]);
    expect(rowsOf(openProvider().load(0, 2).open(SCHEMA, KIND))).toEqual(rowsOf(table));
  });

  it("refuses a commit from a store whose base version a re-run replaced", async () => {
    const provider = openProvider();
    await commitVersions(provider, 3);
    const stale = provider.load(0, 3);
    stale.open(SCHEMA, KIND);
    const rerun = provider.load(0, 1);
    rerun.open(SCHEMA, KIND);
    rerun.commit(2);
    await provider.durable();
    expect(() => stale.commit(4)).toThrow(
      `state of operator 0 partition 0 cannot commit version 4: the version it builds on, 3, is no longer in ${shard()} (a re-run of an earlier batch replaced it, or retention deleted it); load the state again`,
    );
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta"]);
  });

  it("refuses a file that appeared while it owned the folder: another query writes to the checkpoint", async () => {
    const provider = openProvider();
    await commitVersions(provider, 1);
    const store = provider.load(0, 1);
    store.open(SCHEMA, KIND);
    writeFileSync(shard("2.delta"), "written by someone else");
    store.commit(2);
    await expect(provider.durable()).rejects.toThrow(CheckpointError);
    await expect(provider.durable()).rejects.toThrow(
      `state file ${shard("2.delta")} appeared while this query was writing it: another query is using the checkpoint ${temp.dir}; stop it, or give this query its own checkpointLocation`,
    );
    expect(readFileSync(shard("2.delta"), "utf8")).toBe("written by someone else");
  });
});

describe("FileStateStoreProvider: maintenance errors", () => {
  it("reports a failed deletion, retries it on the next pass, and fails the commit after maxMaintenanceFailures passes in a row", async () => {
    const reported: string[] = [];
    const provider = openProvider({
      minBatchesToRetain: 1,
      minDeltasForSnapshot: 1,
      maxMaintenanceFailures: 2,
      onMaintenanceError: (e) => reported.push(`${e.name}: ${e.message.replace(/: ERR_FS_EISDIR .*/, "")}`),
    });
    const store = provider.load(0, 0);
    const table = store.open(SCHEMA, KIND);
    const commit = async (v: number) => {
      setRow(table, `k${v}`, v, null);
      store.commit(v);
      await provider.flush();
    };
    await commit(1);
    await commit(2);
    expect(stateFiles(shard())).toEqual(["1.snapshot", "2.delta", "2.snapshot"]);
    // 1.snapshot becomes something that cannot be deleted (a folder with a file in it).
    rmSync(shard("1.snapshot"));
    mkdirSync(shard("1.snapshot", "blocker"), { recursive: true });
    await commit(3);
    const failure = `CheckpointError: cannot delete checkpoint file ${shard("1.snapshot")}`;
    // (the rest of the message is the file system's own)
    expect(reported).toEqual([failure]);
    // The rest of the pass went on: 2.delta is gone.
    expect(stateFiles(shard())).toEqual(["1.snapshot", "2.snapshot", "3.delta", "3.snapshot"]);
    await commit(4);
    expect(reported).toEqual([failure, failure]);
    setRow(table, "k5", 5, null);
    expect(() => store.commit(5)).toThrow(CheckpointError);
    expect(() => store.commit(5)).toThrow(`state maintenance of ${shard()} failed 2 times in a row (last: ${failure.replace("CheckpointError: ", "")}`);
    // Once the cause is gone, a restarted query maintains the folder again.
    rmSync(shard("1.snapshot"), { recursive: true });
    const restarted = openProvider({ minBatchesToRetain: 1, minDeltasForSnapshot: 1 });
    await commitVersions(restarted, 5, 4);
    expect(stateFiles(shard())).toEqual(["4.snapshot", "5.delta", "5.snapshot"]);
  });

  it("reports through process warnings unless told otherwise", async () => {
    const warnings: Error[] = [];
    const listener = (w: Error) => warnings.push(w);
    process.on("warning", listener);
    try {
      const provider = openProvider({ minBatchesToRetain: 1, minDeltasForSnapshot: 1 });
      await commitVersions(provider, 2);
      rmSync(shard("1.snapshot"));
      mkdirSync(shard("1.snapshot", "blocker"), { recursive: true });
      const store = provider.load(0, 2);
      store.open(SCHEMA, KIND);
      store.commit(3);
      await provider.flush();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listener);
    }
    expect(warnings.map((w) => w.name)).toEqual(["CheckpointError"]);
    expect(warnings[0]!.message).toMatch(new RegExp(`^cannot delete checkpoint file ${escape(shard("1.snapshot"))}: ERR_FS_EISDIR`));
  });
});

describe("FileStateStoreProvider: options", () => {
  it("validates its options, under Spark's names", () => {
    expect(openProvider().settings).toMatchObject({ minBatchesToRetain: 100, minDeltasForSnapshot: 10, maxMaintenanceFailures: 10 });
    expect(openProvider({ minBatchesToRetain: "5" as unknown as number }).minBatchesToRetain).toBe(5);
    expect(() => openProvider({ minBatchesToRetain: 0 })).toThrow(OptionError);
    expect(() => openProvider({ minDeltasForSnapshot: 2.5 })).toThrow(
      'FileStateStoreProvider: option "minDeltasForSnapshot": minDeltasForSnapshot must be a whole number (got 2.5)',
    );
    expect(() => openProvider({ minBatchesToRetain: 0 })).toThrow(
      'option "minBatchesToRetain": minBatchesToRetain must be at least 1 (a batch re-runs from the version before it) (got 0)',
    );
    expect(() => openProvider({ retain: 3 } as never)).toThrow(/unrecognized key.*"retain"/i);
  });
});

describe("FileStateStoreProvider: refusals name the file", () => {
  async function threeVersions(options = {}) {
    return commitVersions(openProvider({ minDeltasForSnapshot: 2, ...options }), 3);
  }
  const loadAt = (version: number, schema = SCHEMA, kind = KIND) => openProvider().load(0, version).open(schema, kind);

  it("a missing delta in the chain", async () => {
    await threeVersions({ minDeltasForSnapshot: 10 });
    rmSync(shard("1.delta"));
    expect(() => loadAt(3)).toThrow(CheckpointError);
    expect(() => loadAt(3)).toThrow(
      `state of operator 0 partition 0 cannot be loaded at version 3: state file ${shard("1.delta")} is missing (${shard("2.delta")} builds on version 1)`,
    );
    rmSync(shard("2.delta"));
    expect(() => loadAt(3)).toThrow(`state file ${shard("2.delta")} is missing (${shard("3.delta")} builds on version 2)`);
  });

  it("a corrupt file", async () => {
    await threeVersions();
    writeFileSync(shard("3.delta"), "not arrow");
    expect(() => loadAt(3)).toThrow(CheckpointError);
    expect(() => loadAt(3)).toThrow(`state file ${shard("3.delta")} is corrupt: it is truncated or not an Arrow IPC file (9 bytes, no Arrow file footer at the end)`);
    const bytes = readFileSync(shard("2.snapshot"));
    bytes.fill(0x55, 8, bytes.length - 8);
    writeFileSync(shard("2.snapshot"), bytes);
    expect(() => loadAt(2)).toThrow(new RegExp(`^state file ${escape(shard("2.snapshot"))} is corrupt: it is not a readable Arrow IPC file`));
  });

  it("a truncated file", async () => {
    await threeVersions();
    const bytes = readFileSync(shard("2.snapshot"));
    writeFileSync(shard("2.snapshot"), bytes.subarray(0, bytes.length >> 1));
    expect(() => loadAt(3)).toThrow(`state file ${shard("2.snapshot")} is corrupt: it is truncated or not an Arrow IPC file (${bytes.length >> 1} bytes, no Arrow file footer at the end)`);
  });

  it("a file of the wrong shape: not a state file, or another version than its name says", async () => {
    await threeVersions();
    writeFileSync(shard("3.delta"), arrow.tableToIPC(arrow.tableFromArrays({ x: Float64Array.of(1, 2) }), "file"));
    expect(() => loadAt(3)).toThrow(`state file ${shard("3.delta")} is corrupt: it is not a Sluice state file: its schema metadata has no "sluice.state.format"`);
    writeFileSync(shard("3.delta"), readFileSync(shard("1.delta")));
    expect(() => loadAt(3)).toThrow(`state file ${shard("3.delta")} is corrupt: its metadata says it is a delta of version 1, but its name says a delta of version 3`);
  });

  it("state of another operator kind", async () => {
    await threeVersions();
    expect(() => loadAt(3, SCHEMA, "dedupe")).toThrow(CheckpointError);
    expect(() => loadAt(3, SCHEMA, "dedupe")).toThrow(
      `state file ${shard("2.snapshot")} holds state of operator "stateStoreSave" with value columns [count: f64, label: bytes], ` +
        `but this query needs state of operator "dedupe" with value columns [count: f64, label: bytes]: the checkpoint belongs to a different query; use a new checkpointLocation`,
    );
  });

  it("state with another value schema", async () => {
    await threeVersions();
    const other = [{ name: "count", kind: "f64" as const }];
    expect(() => loadAt(1, other)).toThrow(
      `state file ${shard("1.delta")} holds state of operator "stateStoreSave" with value columns [count: f64, label: bytes], but this query needs state of operator "stateStoreSave" with value columns [count: f64]`,
    );
  });

  it("a newer format", async () => {
    await threeVersions();
    const file = shard("3.delta");
    const table = arrow.tableFromIPC(readFileSync(file));
    const metadata = new Map(table.schema.metadata).set("sluice.state.format", "2");
    const newer = new arrow.Table(new arrow.Schema(table.schema.fields, metadata), table.batches.map((b) => new arrow.RecordBatch(new arrow.Schema(table.schema.fields, metadata), b.data)));
    writeFileSync(file, arrow.tableToIPC(newer, "file"));
    expect(() => loadAt(3)).toThrow(
      `state file ${file} was written by a newer Sluice (state format 2; this one reads up to 1): upgrade Sluice to read this checkpoint`,
    );
    expect(existsSync(file)).toBe(true);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
