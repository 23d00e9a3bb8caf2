import type { JoinMatches } from "./join-hash.js";

/**
 * What a join makes of its matching pairs, as typed arrays. Pairs come in probe row order (the
 * hash probe lists them so, and a selection keeps that order), which lets each step below be one
 * pass over the pairs and the probe rows.
 */

/** The pairs at `selection` (ascending indexes into the pairs), moved down in place. */
export function keepPairs(matches: JoinMatches, selection: Int32Array): JoinMatches {
  const { probeRows, buildRows } = matches;
  for (let k = 0; k < selection.length; k++) {
    const j = selection[k]!;
    probeRows[k] = probeRows[j]!;
    buildRows[k] = buildRows[j]!;
  }
  return { probeRows, buildRows, count: selection.length };
}

/** Per probe row of [0, numRows), 1 when at least one pair has it. */
export function matchedProbeRows(matches: JoinMatches, numRows: number): Uint8Array {
  const matched = new Uint8Array(numRows);
  const { probeRows, count } = matches;
  for (let k = 0; k < count; k++) matched[probeRows[k]!] = 1;
  return matched;
}

/** The probe rows whose flag is `value`, ascending: the rows a semi join keeps (1) or an anti join keeps (0). */
export function rowsFlagged(flags: Uint8Array, value: 0 | 1): Int32Array {
  let n = 0;
  for (let r = 0; r < flags.length; r++) if (flags[r] === value) n++;
  const rows = new Int32Array(n);
  let k = 0;
  for (let r = 0; r < flags.length; r++) if (flags[r] === value) rows[k++] = r;
  return rows;
}

/**
 * An outer join's rows: the pairs, with each probe row of [0, numRows) that has none put in its
 * place in probe order as one pair with build row -1.
 */
export function withUnmatchedRows(matches: JoinMatches, numRows: number): JoinMatches {
  const { probeRows, buildRows, count } = matches;
  let unmatched = numRows;
  for (let k = 0; k < count; k++) if (k === 0 || probeRows[k] !== probeRows[k - 1]) unmatched--;
  const total = count + unmatched;
  const outProbe = new Int32Array(total);
  const outBuild = new Int32Array(total);
  let k = 0;
  let o = 0;
  for (let row = 0; row < numRows; row++) {
    if (k < count && probeRows[k] === row) {
      do {
        outProbe[o] = row;
        outBuild[o++] = buildRows[k++]!;
      } while (k < count && probeRows[k] === row);
    } else {
      outProbe[o] = row;
      outBuild[o++] = -1;
    }
  }
  return { probeRows: outProbe, buildRows: outBuild, count: total };
}

/**
 * Pair lists gathered from several probes (the row ranges of a nested-loop join), in order: typed
 * arrays that grow by doubling.
 */
export class PairList {
  private probeRows = new Int32Array(1024);
  private buildRows = new Int32Array(1024);
  private count = 0;

  append(matches: JoinMatches): void {
    const need = this.count + matches.count;
    if (need > this.probeRows.length) {
      let size = this.probeRows.length;
      while (size < need) size *= 2;
      this.probeRows = grown(this.probeRows, size);
      this.buildRows = grown(this.buildRows, size);
    }
    this.probeRows.set(matches.probeRows.subarray(0, matches.count), this.count);
    this.buildRows.set(matches.buildRows.subarray(0, matches.count), this.count);
    this.count = need;
  }

  matches(): JoinMatches {
    return { probeRows: this.probeRows, buildRows: this.buildRows, count: this.count };
  }
}

function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(size);
  bigger.set(a);
  return bigger;
}
