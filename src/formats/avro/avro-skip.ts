import type { Skipper } from "./avro-plan.js";
import { FAULT_ENUM_INDEX, FAULT_NEGATIVE_LENGTH, FAULT_UNION_INDEX, type AvroReader } from "./avro-reader.js";
import type { AvroSchema } from "./avro-schema-types.js";

/**
 * Skipping a writer's value the reader does not read, for any type. Compiled once per schema into
 * closures (recursive types included); values whose size never varies (booleans, floats,
 * doubles, fixed, records of those) are skipped by their size in one step.
 *
 * Arrays and maps are series of blocks, each a count and that many items, ended by a count of 0.
 * A negative count is followed by the block's size in bytes, and such a block is skipped without
 * reading its items; items of a fixed size are skipped in one step too. Every item of variable
 * size takes at least one byte, so a block can never loop longer than the record is long.
 */

export interface SkipPlan {
  /** Bytes every value takes, or -1 when it varies. */
  readonly size: number;
  readonly skip: Skipper;
}

export function compileSkip(schema: AvroSchema): SkipPlan {
  return new SkipCompiler().plan(schema);
}

const VARIABLE = -1;
const skipVarint: Skipper = (r) => r.skipVarint();
const skipBytes: Skipper = (r) => r.skip(r.length());

class SkipCompiler {
  /** Named types being compiled or compiled: a recursive reference finds its (not yet finished) plan here. */
  private readonly named = new Map<AvroSchema, SkipPlan>();

  plan(schema: AvroSchema): SkipPlan {
    switch (schema.type) {
      case "null":
        return fixedSize(0);
      case "boolean":
        return fixedSize(1);
      case "float":
        return fixedSize(4);
      case "double":
        return fixedSize(8);
      case "int":
      case "long":
        return { size: VARIABLE, skip: skipVarint };
      case "bytes":
      case "string":
        return { size: VARIABLE, skip: skipBytes };
      case "fixed":
        return fixedSize(schema.size);
      case "enum": {
        const count = schema.symbols.length;
        return {
          size: VARIABLE,
          skip: (r) => {
            const index = r.int();
            if (index < 0 || index >= count) r.fail(FAULT_ENUM_INDEX, index, count);
          },
        };
      }
      case "array":
        return { size: VARIABLE, skip: blocks(this.plan(schema.items)) };
      case "map": {
        const value = this.plan(schema.values);
        const entry: SkipPlan = value.size === 0 ? { size: VARIABLE, skip: skipBytes } : { size: VARIABLE, skip: (r) => (skipBytes(r), value.skip(r)) };
        return { size: VARIABLE, skip: blocks(entry) };
      }
      case "union": {
        const branches = schema.branches.map((b) => this.plan(b).skip);
        const count = branches.length;
        return {
          size: VARIABLE,
          skip: (r) => {
            const index = r.int();
            if (index < 0 || index >= count) r.fail(FAULT_UNION_INDEX, index, count);
            branches[index]!(r);
          },
        };
      }
      case "record":
        return this.record(schema);
    }
  }

  private record(schema: Extract<AvroSchema, { type: "record" }>): SkipPlan {
    const known = this.named.get(schema);
    if (known !== undefined) return known;
    // Registered before the fields compile, so that a field of the record's own type finds it.
    let skips: Skipper[] = [];
    const plan: { size: number; skip: Skipper } = {
      size: VARIABLE,
      skip: (r) => {
        for (let i = 0; i < skips.length; i++) skips[i]!(r);
      },
    };
    this.named.set(schema, plan);
    const fields = schema.fields.map((f) => this.plan(f.type));
    if (fields.every((f) => f.size >= 0)) {
      const total = fields.reduce((sum, f) => sum + f.size, 0);
      Object.assign(plan, fixedSize(total));
    } else skips = fields.filter((f) => f.size !== 0).map((f) => f.skip);
    return plan;
  }
}

function fixedSize(size: number): SkipPlan {
  return { size, skip: size === 0 ? () => undefined : (r) => r.skip(size) };
}

/** A series of blocks of items, each skipped by `item`. */
function blocks(item: SkipPlan): Skipper {
  const size = item.size;
  return (r) => {
    for (;;) {
      let count = r.long();
      if (count === 0) return;
      if (count < 0) {
        count = -count;
        const bytes = r.long();
        if (bytes < 0) r.fail(FAULT_NEGATIVE_LENGTH, bytes);
        r.skip(bytes);
      } else if (size >= 0) r.skip(count * size);
      else for (let i = 0; i < count; i++) item.skip(r);
    }
  };
}
