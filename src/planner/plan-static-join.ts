import { InternalError } from "../errors/errors.js";
import { type Expr, referencedColumns } from "../expr/ast.js";
import type { JoinType, LogicalPlan } from "../plan/logical.js";
import { isHashableKey } from "../operators/static-join-table.js";
import type { ColType } from "../types/dtype.js";
import { conjoin, joinParts } from "./plan-join.js";
import type { StaticJoinMode, StaticJoinSpec, StaticTableSpec } from "./physical.js";

/** The side of a join that is built into the shared hash table; the other side probes it. */
export type BuildSide = "left" | "right";

/**
 * Plans a join whose `build` side is static as a probe of a hash table built from that side
 * (Spark's broadcast hash join, or broadcast nested-loop join when no equality joins the sides).
 * The condition is taken apart as for a symmetric hash join (`joinParts`), with the equalities
 * the table can hash as keys. The static side's own conjuncts filter it before the table is built:
 * the build side is never the preserved side of an outer join, so a row failing them can only
 * ever be left out. A join on columns gets the projection that gives its logical output, unless
 * the probe already gives exactly that.
 */
export function planStaticJoin(
  p: LogicalPlan & { kind: "join" },
  build: BuildSide,
  tableId: string,
): { readonly table: StaticTableSpec; readonly spec: StaticJoinSpec; readonly output: Expr[] | null } {
  const parts = joinParts(p, hashable);
  const probeIsLeft = build === "right";
  const buildPlan = probeIsLeft ? p.right : p.left;
  const buildCondition = probeIsLeft ? parts.rightCondition : parts.leftCondition;
  const table: StaticTableSpec = {
    tableId,
    plan: buildCondition === null ? buildPlan : { kind: "filter", input: buildPlan, condition: buildCondition },
    use: "join",
    on: probeIsLeft ? parts.rightKeys : parts.leftKeys,
  };

  const buildFields = probeIsLeft ? parts.rightFields : parts.leftFields;
  const buildNames = probeIsLeft ? parts.rightPairNames : buildFields.map((f) => f.name);
  // A join on columns carries of the static side what its output projection reads (each key is
  // taken from one side only); a join on a condition keeps every column of both sides.
  const read = parts.output === null ? null : new Set(parts.output.flatMap((e) => [...referencedColumns(e)]));
  const buildColumns = buildNames.flatMap((name, i) => (read === null || read.has(name) ? [i] : []));
  const spec: StaticJoinSpec = {
    op: "joinStatic",
    tableId,
    mode: probeMode(p.joinType, build),
    probeSide: probeIsLeft ? "left" : "right",
    probeKeys: probeIsLeft ? parts.leftKeys : parts.rightKeys,
    probeCondition: probeIsLeft ? parts.leftCondition : parts.rightCondition,
    pairCondition: conjoin(parts.pairConjuncts),
    rightPairNames: parts.rightPairNames,
    buildColumns,
  };

  const probeNames = probeIsLeft ? parts.leftFields.map((f) => f.name) : parts.rightPairNames;
  const carried = buildColumns.map((i) => buildNames[i]!);
  const outputNames = spec.mode === "semi" || spec.mode === "anti" ? probeNames : probeIsLeft ? [...probeNames, ...carried] : [...carried, ...probeNames];
  return { table, spec, output: parts.output !== null && !isSelectionOf(parts.output, outputNames) ? parts.output : null };
}

/** Equalities the table can hash: the comparable types the kernels read as numbers or as bytes. */
function hashable(left: ColType, right: ColType): boolean {
  return isHashableKey(left.type) && isHashableKey(right.type);
}

/** What a probe row gives, for a join whose other side is the `build` side (the planner picks a side that is never preserved). */
function probeMode(joinType: JoinType, build: BuildSide): StaticJoinMode {
  switch (joinType) {
    case "inner":
      return "inner";
    case "left":
    case "right":
      if ((joinType === "left") === (build === "left")) throw new InternalError(`a ${joinType} outer join cannot build its preserved side into a table`);
      return "outer";
    case "leftSemi":
    case "leftAnti":
      if (build === "left") throw new InternalError(`a ${joinType} join keeps left rows: only its right side can be built into a table`);
      return joinType === "leftSemi" ? "semi" : "anti";
    case "full":
      throw new InternalError("a full outer join preserves both sides: it runs as a symmetric hash join");
  }
}

/** Whether `exprs` just name `names`, in order. */
function isSelectionOf(exprs: readonly Expr[], names: readonly string[]): boolean {
  return exprs.length === names.length && exprs.every((e, i) => e.kind === "col" && e.name === names[i]);
}
