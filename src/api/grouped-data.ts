import type { Expr } from "../expr/ast.js";
import type { LogicalPlan } from "../plan/logical.js";
import type { ColType, SchemaShape } from "../types/dtype.js";
import type { ColumnOf, MergeSchemas, SelectSchema } from "../types/schema-ops.js";
import { DataFrame } from "./data-frame.js";
import type { SessionInternals } from "./session-internals.js";

/** The result of `groupBy`: aggregate it with `agg(...)` or `count()`. K is the key schema. */
export class GroupedData<S extends SchemaShape, K extends SchemaShape> {
  /** @internal */
  constructor(
    private readonly session: SessionInternals,
    private readonly input: LogicalPlan,
    private readonly keys: readonly Expr[],
  ) {}

  /** One row per group: the keys, then each aggregate (`count`, `sum`, `avg`, `min`, `max`, `first`, `last`). */
  agg<const As extends readonly ColumnOf<S>[]>(...aggs: As): DataFrame<MergeSchemas<K, SelectSchema<S, As>>> {
    return new DataFrame(this.session, { kind: "aggregate", input: this.input, keys: this.keys, aggs: aggs.map((a) => a.expr) });
  }

  /** Rows per group, in a column named `count`. */
  count(): DataFrame<MergeSchemas<K, { readonly count: ColType<"int64", false> }>> {
    const countAll: Expr = { kind: "alias", child: { kind: "agg", fn: "count", child: null }, name: "count" };
    return new DataFrame(this.session, { kind: "aggregate", input: this.input, keys: this.keys, aggs: [countAll] });
  }
}
