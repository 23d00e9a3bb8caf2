/**
 * Why one record could not be decoded. Thrown inside the record decoder and caught once per line
 * by the bad-record policy (see `json-lines.ts`), so the scanner's good path carries no error
 * plumbing. It deliberately does not extend `Error`: no stack is captured, which keeps
 * PERMISSIVE and DROPMALFORMED cheap on files with many bad lines.
 */
export class RecordProblem {
  constructor(
    /** `syntax`: the line is not valid JSON (or not an object); `schema`: it does not fit the fields. */
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

/** A byte as it should appear in a message: a printable character in quotes, or its code. */
export function describeByte(byte: number | undefined): string {
  if (byte === undefined) return "end of input";
  if (byte === 0x0a) return "end of line";
  if (byte >= 0x21 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return `byte 0x${byte.toString(16).padStart(2, "0")}`;
}

/** The FAILFAST message: names the file and 1-based line, then what was wrong. */
export function malformedRecordMessage(problem: RecordProblem, line: number, file: string | undefined): string {
  const where = file === undefined ? `line ${line}` : `line ${line} of ${file}`;
  const what = problem.kind === "syntax" ? "malformed JSON" : "record does not match the schema";
  return `${what} at ${where}: ${problem.detail}`;
}
