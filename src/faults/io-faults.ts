/**
 * Injected I/O errors for fault tests: a process started with `SLUICE_FAIL_IO=write:<fragment>`
 * fails every checkpoint or state file write whose path contains `<fragment>` (say
 * `write:/commits/3` or `write:/state/0/0/`) with EIO, as a failing disk would, so a test can check
 * that the query stops with an error naming the path and, started again without the fault, loses
 * nothing. Read once at load; unset, a check is one comparison.
 */
const FAIL_IO = parse(process.env.SLUICE_FAIL_IO);

function parse(spec: string | undefined): { op: string; fragment: string } | null {
  if (!spec) return null;
  const colon = spec.indexOf(":");
  return colon < 0 ? { op: spec, fragment: "" } : { op: spec.slice(0, colon), fragment: spec.slice(colon + 1) };
}

/** Throws the injected EIO when `SLUICE_FAIL_IO` names this operation on this path. */
export function ioFault(op: "write", file: string): void {
  if (FAIL_IO === null || FAIL_IO.op !== op || !file.includes(FAIL_IO.fragment)) return;
  throw Object.assign(new Error(`EIO: i/o error (injected by SLUICE_FAIL_IO), ${op} '${file}'`), { code: "EIO", errno: -5, syscall: op, path: file });
}
