import { AnalysisError } from "../errors/errors.js";
import { type Expr, mapColumns, referencedColumns, unalias } from "../expr/ast.js";
import { resolveType } from "../expr/resolve.js";
import { carriesEventTime, eventTimeColumnOf, eventTimeColumns } from "../plan/event-time-columns.js";
import { joinTypeName, type LogicalPlan } from "../plan/logical.js";
import { schemaOf } from "../plan/schema-of.js";
import type { ColType, Field, Fields } from "../types/dtype.js";
import type { JoinStateWatermark, StreamJoinSpec } from "./physical.js";

/**
 * A join's condition taken apart the way both join operators run it (Spark's ExtractEquiJoinKeys):
 * the equalities between an expression of each side become hash keys, the conjuncts that read one
 * side only are checked on that side's rows, and what is left is checked per pair of rows.
 *
 * The join sees each side under its own names, except that a right column named like a left one
 * (the keys of a join on columns) is `__right_<name>` in the pair of rows the condition reads.
 * A join on columns then projects the logical output (each key once) from that pair.
 */
export interface JoinParts {
  readonly leftFields: Fields;
  readonly rightFields: Fields;
  /** The right side's columns in the pair of rows, in `rightFields` order. */
  readonly rightPairNames: readonly string[];
  /** Equality keys, pairwise: `leftKeys[k]` over the left side's columns equals `rightKeys[k]` over the right side's own. */
  readonly leftKeys: readonly Expr[];
  readonly rightKeys: readonly Expr[];
  /** The conjuncts that read one side only, over that side's own names. */
  readonly leftCondition: Expr | null;
  readonly rightCondition: Expr | null;
  /** The other conjuncts, over the pair of rows (left columns, then right ones under their pair names). */
  readonly pairConjuncts: readonly Expr[];
  /** A join on columns: the logical output projected from the pair (each key once); null for a join on a condition. */
  readonly output: Expr[] | null;
}

/**
 * Splits `p`'s condition (and the equalities a join on columns stands for). `keyable`, when given,
 * says whether an equality between expressions of these types can be a hash key; one that cannot
 * stays in the pair conjuncts, checked per pair like any other.
 */
export function joinParts(p: LogicalPlan & { kind: "join" }, keyable?: (left: ColType, right: ColType) => boolean): JoinParts {
  const leftFields = schemaOf(p.left);
  const rightFields = schemaOf(p.right);
  const leftNames = new Set(leftFields.map((f) => f.name));
  const pairName = (f: Field) => (leftNames.has(f.name) ? `__right_${f.name}` : f.name);
  const rightPairFields: Fields = rightFields.map((f) => ({ ...f, name: pairName(f) }));

  const conjuncts: Expr[] = [
    ...p.on.map((k): Expr => ({ kind: "cmp", op: "=", left: { kind: "col", name: k }, right: { kind: "col", name: `__right_${k}` } })),
    ...(p.condition ? splitConjuncts(p.condition) : []),
  ];
  const rightPairNames = new Set(rightPairFields.map((f) => f.name));
  const sideOf = (e: Expr): "left" | "right" | "both" | "none" => {
    const refs = [...referencedColumns(e)].map(rootName);
    const l = refs.some((r) => leftNames.has(r) && !rightPairNames.has(r));
    const r = refs.some((n) => rightPairNames.has(n));
    return l && r ? "both" : l ? "left" : r ? "right" : "none";
  };
  const key = (left: Expr, right: Expr): boolean => keyable === undefined || keyable(resolveType(left, leftFields), resolveType(right, rightPairFields));

  const leftKeys: Expr[] = [];
  const rightKeys: Expr[] = [];
  const leftOnly: Expr[] = [];
  const rightOnly: Expr[] = [];
  const both: Expr[] = [];
  for (const c of conjuncts) {
    if (c.kind === "cmp" && c.op === "=") {
      const [a, b] = [sideOf(c.left), sideOf(c.right)];
      if (a === "left" && b === "right" && key(c.left, c.right)) {
        leftKeys.push(c.left);
        rightKeys.push(unpair(c.right, rightFields, pairName));
        continue;
      }
      if (a === "right" && b === "left" && key(c.right, c.left)) {
        leftKeys.push(c.right);
        rightKeys.push(unpair(c.left, rightFields, pairName));
        continue;
      }
    }
    const side = sideOf(c);
    if (side === "left") leftOnly.push(c);
    else if (side === "right") rightOnly.push(unpair(c, rightFields, pairName));
    else both.push(c);
  }
  return {
    leftFields,
    rightFields,
    rightPairNames: rightPairFields.map((f) => f.name),
    leftKeys,
    rightKeys,
    leftCondition: conjoin(leftOnly),
    rightCondition: conjoin(rightOnly),
    pairConjuncts: both,
    output: p.on.length > 0 ? usingOutput(p, leftFields, rightFields) : null,
  };
}

/**
 * Plans a join that runs as a symmetric hash join (two streams, or a full outer join of two static
 * sides): its parts, and how far each side's state is bounded by the watermark, as Spark's
 * StreamingSymmetricHashJoinHelper works it out.
 */
export function planJoin(p: LogicalPlan & { kind: "join" }, operatorId: number): { spec: StreamJoinSpec; output: Expr[] | null } {
  const parts = joinParts(p);
  const { leftFields, rightFields, leftKeys, rightKeys, pairConjuncts: both } = parts;
  const leftTimes = eventTimeColumns(p.left);
  const rightTimes = eventTimeColumns(p.right);
  const leftTime = eventTimeColumnOf(p.left, "stream-stream join's left side");
  const rightTime = eventTimeColumnOf(p.right, "stream-stream join's right side");
  const rightTimeInPair = rightTime === null ? null : parts.rightPairNames[rightFields.findIndex((f) => f.name === rightTime)]!;

  // A key that carries event time bounds both sides' state by that key (Spark uses the first such
  // key, on either side, for both); otherwise a time-range condition may bound a side by its values.
  const keyOrdinal = [leftKeys.findIndex((k) => carriesEventTime(k, leftTimes)), rightKeys.findIndex((k) => carriesEventTime(k, rightTimes))].find((i) => i >= 0);
  const keyed: JoinStateWatermark | null = keyOrdinal === undefined ? null : { kind: "key", keyIndex: keyOrdinal };
  const leftState = keyed ?? valueWatermark(both, leftTime, rightTimeInPair, leftTime);
  const rightState = keyed ?? valueWatermark(both, rightTimeInPair, leftTime, rightTime);

  const spec: StreamJoinSpec = {
    op: "streamJoin",
    operatorId,
    joinType: p.joinType,
    leftFields,
    rightFields,
    rightPairNames: parts.rightPairNames,
    leftKeys,
    rightKeys,
    leftCondition: parts.leftCondition,
    rightCondition: parts.rightCondition,
    pairCondition: conjoin(both),
    leftEventTime: leftTime,
    rightEventTime: rightTime,
    leftState,
    rightState,
  };
  return { spec, output: parts.output };
}

/**
 * Spark's checks of a stream-stream join: it needs an equality, and an outer or semi join needs
 * the state of its preserved side bounded (a watermark in the join keys, or a watermark on the
 * other side and a time-range condition), or its rows could wait for the NULL row forever.
 */
export function checkStreamJoin(spec: StreamJoinSpec): void {
  if (spec.leftKeys.length === 0) throw new AnalysisError("Stream-stream join without equality predicate is not supported");
  if (spec.leftState?.kind === "key") return;
  const bounded =
    spec.joinType === "inner" ||
    ((spec.joinType === "left" || spec.joinType === "leftSemi") && spec.leftState !== null) ||
    (spec.joinType === "right" && spec.rightState !== null) ||
    (spec.joinType === "full" && (spec.leftState !== null || spec.rightState !== null));
  if (bounded) return;
  throw new AnalysisError(
    `Stream-stream ${joinTypeName(spec.joinType)} join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition`,
  );
}

function rootName(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 && (name.endsWith(".start") || name.endsWith(".end")) ? name.slice(0, dot) : name;
}

function splitConjuncts(e: Expr): Expr[] {
  const u = unalias(e);
  return u.kind === "logic" && u.op === "and" ? [...splitConjuncts(u.left), ...splitConjuncts(u.right)] : [u];
}

export function conjoin(parts: readonly Expr[]): Expr | null {
  return parts.length === 0 ? null : parts.reduce((a, b) => ({ kind: "logic", op: "and", left: a, right: b }));
}

/** An expression over the right side's pair names, back on the right side's own names. */
function unpair(e: Expr, rightFields: Fields, pairName: (f: Field) => string): Expr {
  const back = new Map(rightFields.map((f) => [pairName(f), f.name]));
  return mapColumns(e, (x) => {
    const root = rootName(x.name);
    const to = back.get(root);
    return to === undefined ? x : { kind: "col", name: to + x.name.slice(root.length) };
  });
}

/**
 * A linear form of a time expression: the sum of `coef * column` plus `constMs`, for columns,
 * intervals and their sums and differences; null for anything else.
 */
interface Linear {
  readonly terms: ReadonlyMap<string, number>;
  readonly constMs: number;
}

function linear(e: Expr): Linear | null {
  const u = unalias(e);
  switch (u.kind) {
    case "col":
      return { terms: new Map([[u.name, 1]]), constMs: 0 };
    case "interval":
      return { terms: new Map(), constMs: u.ms };
    case "cast":
      return u.to === "timestamp" ? linear(u.child) : null;
    case "arith": {
      if (u.op !== "+" && u.op !== "-") return null;
      const a = linear(u.left);
      const b = linear(u.right);
      if (!a || !b) return null;
      const sign = u.op === "+" ? 1 : -1;
      const terms = new Map(a.terms);
      for (const [c, k] of b.terms) terms.set(c, (terms.get(c) ?? 0) + sign * k);
      return { terms, constMs: a.constMs + sign * b.constMs };
    }
    default:
      return null;
  }
}

/**
 * How long this side's rows stay matchable, from the conjuncts that bound the other side's event
 * time `other` from above by this side's `own` (Spark's getStateValueWatermark): `other < own + c`
 * solved for the other side's watermark W gives rows with `own <= W - c` that no future row can
 * match; a non-strict `<=` keeps one more millisecond (`W - c - 1`), since removal is inclusive.
 * With several bounds, the most cautious one counts. `column` is this side's event-time column
 * under its own name.
 */
function valueWatermark(conjuncts: readonly Expr[], own: string | null, other: string | null, column: string | null): JoinStateWatermark | null {
  if (own === null || other === null || column === null) return null;
  let best: number | null = null;
  for (const c of conjuncts) {
    if (c.kind !== "cmp" || c.op === "=" || c.op === "!=") continue;
    const l = linear(c.left);
    const r = linear(c.right);
    if (!l || !r) continue;
    // d = left - right, read as "d < 0" or "d <= 0" (negated for > and >=).
    const flip = c.op === ">" || c.op === ">=" ? -1 : 1;
    const terms = new Map<string, number>();
    for (const [k, v] of l.terms) terms.set(k, (terms.get(k) ?? 0) + flip * v);
    for (const [k, v] of r.terms) terms.set(k, (terms.get(k) ?? 0) - flip * v);
    const constMs = flip * (l.constMs - r.constMs);
    const used = [...terms].filter(([, v]) => v !== 0);
    if (used.length !== 2 || terms.get(other) !== 1 || terms.get(own) !== -1) continue;
    // other - own + constMs (<|<=) 0: rows with own <= W + constMs (one less when non-strict) can go.
    const strict = c.op === "<" || c.op === ">";
    const offset = constMs - (strict ? 0 : 1);
    if (best === null || offset < best) best = offset;
  }
  return best === null ? null : { kind: "value", column, offsetMs: best };
}

/** The output of a join on columns: each key once (coalesced in a full outer join), then the other columns. */
function usingOutput(p: LogicalPlan & { kind: "join" }, leftFields: Fields, rightFields: Fields): Expr[] {
  const col = (name: string): Expr => ({ kind: "col", name });
  const left = leftFields.map((f): Expr => {
    if (!p.on.includes(f.name)) return col(f.name);
    const r = col(`__right_${f.name}`);
    switch (p.joinType) {
      case "right":
        return { kind: "alias", child: r, name: f.name };
      case "full":
        return {
          kind: "alias",
          child: { kind: "case", branches: [{ when: { kind: "isNull", child: col(f.name), negated: false }, then: r }], otherwise: col(f.name) },
          name: f.name,
        };
      default:
        return col(f.name);
    }
  });
  if (p.joinType === "leftSemi" || p.joinType === "leftAnti") return left;
  return [...left, ...rightFields.filter((f) => !p.on.includes(f.name)).map((f) => col(f.name))];
}
