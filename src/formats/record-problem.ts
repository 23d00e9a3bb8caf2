/**
 * Why one record could not be decoded. Thrown inside the record decoder and caught once per record
 * by the bad-record policy (see `json-lines.ts` and `json-values.ts`), so the scanner's good path carries no error
 * plumbing. It deliberately does not extend `Error`: no stack is captured, which keeps
 * PERMISSIVE and DROPMALFORMED cheap on files with many bad lines.
 */
export class RecordProblem {
  constructor(
    /** `syntax`: the record is not valid JSON (or not an object); `schema`: it does not fit the fields. */
    readonly kind: "syntax" | "schema",
    readonly detail: string,
  ) {}
}

export function syntaxProblem(detail: string): RecordProblem {
  return new RecordProblem("syntax", detail);
}

export function schemaProblem(detail: string): RecordProblem {
  return new RecordProblem("schema", detail);
}

/**
 * A byte as it should appear in a message: a printable character in quotes, or its code.
 * Undefined or negative (the scanner's END) is the end of the input or of the record.
 */
export function describeByte(byte: number | undefined): string {
  if (byte === undefined || byte < 0) return "end of input";
  if (byte === 0x0a) return "end of line";
  if (byte >= 0x21 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return byteCode(byte);
}

/** "byte 0x0a": how a message names a byte that is not printable. */
export function byteCode(byte: number): string {
  return `byte 0x${byte.toString(16).padStart(2, "0")}`;
}

/** The FAILFAST message: where the record is (such as "line 3 of f.jsonl"), then what was wrong. */
export function malformedRecordMessage(problem: RecordProblem, where: string): string {
  const what = problem.kind === "syntax" ? "malformed JSON" : "record does not match the schema";
  return `${what} at ${where}: ${problem.detail}`;
}
