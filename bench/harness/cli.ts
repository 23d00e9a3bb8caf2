/**
 * The bench runners' command lines: `--name value` (or `--name=value`) options read into a zod
 * schema, and the option types they share. An error names the option and what it takes.
 */
import { z } from "zod";
import { parseSystems } from "./variants.js";

/** A comma-separated list of `values`, or `all`. */
export const listOption = <T extends string>(values: readonly T[], what: string) =>
  z.string().transform((s, ctx) => {
    const picked = s === "all" ? [...values] : s.split(",").map((v) => v.trim());
    const bad = picked.filter((v) => !values.includes(v as T));
    if (bad.length > 0) ctx.addIssue({ code: "custom", message: `unknown ${what} ${bad.join(", ")}: use ${values.join(", ")} or all` });
    return picked as T[];
  });

/** A comma-separated list of positive integers (a rate ladder). */
export const positiveListOption = z.string().transform((s, ctx) => {
  const numbers = s.split(",").map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n <= 0)) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of positive integers" });
  return numbers;
});

/** Systems (all their variants), `system:variant`s, or all (harness/variants.ts). */
export const systemsOption = z.string().transform((s, ctx) => {
  try {
    return parseSystems(s);
  } catch (e) {
    ctx.addIssue({ code: "custom", message: (e as Error).message });
    return z.NEVER;
  }
});

/** The options of every runner that talks to the broker. */
export const brokerOptions = {
  /** A word in every topic name the runner creates, to keep runs from different checkouts on one broker apart. */
  tag: z.string().regex(/^[a-z0-9-]+$/, "lower-case letters, digits and dashes").optional(),
  /** The broker; with KAFKA_BOOTSTRAP_SERVERS set the runner uses that broker as it is and does not start the project's. */
  bootstrap: z.string().default(process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092"),
};

/** Reads `argv` into `schema`; unknown options and bad values throw an error naming the option. */
export function parseOptions<S extends z.ZodObject>(schema: S, argv: readonly string[]): z.infer<S> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unexpected argument "${argv[i]}": options are --name value`);
    raw[m[1]!] = m[2] ?? argv[++i] ?? "";
  }
  const parsed = schema.strict().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`--${issue.path.join(".") || issue.message}: ${issue.message}`);
  }
  return parsed.data as z.infer<S>;
}
