import { z } from "zod";
import { readModeSchema } from "../../config/options.js";
import { validateOptions } from "../../config/validate.js";
import type { ReadMode } from "../read-mode.js";

/**
 * Spark's from_protobuf options (ProtobufOptions), as a reader takes them from users: names are
 * matched case-insensitively, values may be text ("true") or typed, and other options (a source's
 * own) are left alone. Spark's options for what Sluice cannot represent (nested and recursive
 * messages, Any as JSON, wrapper types unwrapped) are refused when set to anything but their
 * default, rather than ignored.
 */

export interface ProtobufReadSettings {
  /** Spark's default for from_protobuf is FAILFAST (a JSON source's is PERMISSIVE). */
  readonly mode: ReadMode;
  readonly emitDefaultValues: boolean;
  readonly enumsAsInts: boolean;
  readonly upcastUnsignedInts: boolean;
}

const bool = (name: string) =>
  z.union([z.boolean(), z.string().transform((s, ctx) => parseBool(s, ctx, name))], { error: `${name} must be true or false` }).default(false);

function parseBool(s: string, ctx: z.RefinementCtx, name: string): boolean {
  const lower = s.trim().toLowerCase();
  if (lower === "true" || lower === "false") return lower === "true";
  ctx.addIssue({ code: "custom", message: `${name} must be true or false` });
  return z.NEVER;
}

/** Spark options whose non-default values ask for column types Sluice does not have. */
const UNSUPPORTED: Readonly<Record<string, { readonly defaults: readonly string[]; readonly why: string }>> = {
  "recursive.fields.max.depth": { defaults: ["-1"], why: "recursive messages would be nested struct columns, which Sluice does not have yet" },
  "convert.any.fields.to.json": { defaults: ["false"], why: "google.protobuf.Any fields are messages, which Sluice cannot read into columns yet" },
  "retain.empty.message.types": { defaults: ["false"], why: "empty messages would be struct columns, which Sluice does not have yet" },
  "unwrap.primitive.wrapper.types": { defaults: ["false"], why: "wrapper types (google.protobuf.Int32Value and the like) are not read yet" },
};

const unsupported = (name: string) =>
  z
    .unknown()
    .refine((v) => v === undefined || UNSUPPORTED[name]!.defaults.includes(String(v).trim().toLowerCase()), {
      message: `${name} is not supported: ${UNSUPPORTED[name]!.why}`,
    })
    .optional();

const schema = z.object({
  mode: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(readModeSchema)
    .default("FAILFAST"),
  "emit.default.values": bool("emit.default.values"),
  "enums.as.ints": bool("enums.as.ints"),
  "upcast.unsigned.ints": bool("upcast.unsigned.ints"),
  ...Object.fromEntries(Object.keys(UNSUPPORTED).map((name) => [name, unsupported(name)])),
});

const KNOWN = new Set(Object.keys(schema.shape));

/**
 * Whether an option of a source that reads Protobuf is one of Spark's from_protobuf options
 * (`emit.default.values` and the like, any case) that `protobufReadOptions` checks. `mode` is not
 * counted: a source has its own.
 */
export function isProtobufReadOption(key: string): boolean {
  const lower = key.toLowerCase();
  return lower !== "mode" && KNOWN.has(lower);
}

/** The settings of decodeProtobufValues that Spark-style options ask for. */
export function protobufReadOptions(options: Readonly<Record<string, unknown>>, where = "from_protobuf options"): ProtobufReadSettings {
  // Spark's option maps are case-insensitive; only the options named here are looked at.
  const known = Object.fromEntries(Object.entries(options).flatMap(([k, v]) => (KNOWN.has(k.toLowerCase()) ? [[k.toLowerCase(), v]] : [])));
  const parsed = validateOptions(schema, known, where);
  return {
    mode: parsed.mode,
    emitDefaultValues: parsed["emit.default.values"],
    enumsAsInts: parsed["enums.as.ints"],
    upcastUnsignedInts: parsed["upcast.unsigned.ints"],
  };
}
