// How a JSON-lines stream reads untidy records, embedded and on Spark (parity.ts), with a schema of nullable
// fields: numbers into a text field, a missing field, -0.0, keys not in the schema, and lines that are not JSON
// objects (a row of nulls under PERMISSIVE, nothing under DROPMALFORMED).
//
// Left out, because the engines differ there: a record with a field of the wrong type (Spark 4 keeps the
// fields that parsed, spark.sql.json.enablePartialResults; the embedded engine makes the whole record
// malformed), and a schema with non-nullable fields (Spark reads every file-source field as nullable; the
// embedded engine makes a record without such a field malformed).
import { describe, it } from "vitest";
import { z } from "zod";
import { runBoth } from "../../testing/remote-parity.js";

const Rec = z.object({
  name: z.string().nullable(),
  n: z.int32().nullable(),
  x: z.number().nullable(),
  at: z.iso.datetime().nullable(),
  ok: z.boolean().nullable(),
});

const LINES = [
  '{"name":"a","n":1,"x":1.5,"at":"2026-01-01T00:00:00Z","ok":true}',
  '{"name":7,"n":4,"x":-0.0,"at":"2026-01-01T01:00:00.123+01:00","ok":null}',
  '{"name":"d"}',
  '{"extra":[1,{"y":2}],"name":"e","at":"2026-01-01T00:00:00.5Z"}',
  '{"name":"f", broken',
  "[1,2]",
];
const row = (name: string | null, n: number | null, x: number | null, at: string | null, ok: boolean | null) => ({ name, n, x, at: at === null ? null : new Date(at), ok });
const GOOD = [
  row("a", 1, 1.5, "2026-01-01T00:00:00Z", true),
  row("7", 4, -0, "2026-01-01T00:00:00.123Z", null),
  row("d", null, null, null, null),
  row("e", null, null, "2026-01-01T00:00:00.500Z", null),
];
const NULLS = row(null, null, null, null, null);

describe("untidy JSON records, embedded and on Spark", () => {
  it.each([
    ["PERMISSIVE", [...GOOD, NULLS, NULLS]],
    ["DROPMALFORMED", GOOD],
  ] as const)("%s", (mode, table) =>
    runBoth({
      name: `json_${mode.toLowerCase()}`,
      outputMode: "append",
      query: (session, [dir]) => session.readStream.schema(Rec).option("mode", mode).json(dir!),
      steps: [{ add: LINES as never, table }],
    }), 60_000);
});
