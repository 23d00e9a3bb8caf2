/**
 * The operating system's words for a failed file operation, e.g. "ENOENT: no such file or
 * directory", without Node's trailing syscall and path (messages name the path themselves).
 */
export function osErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && error.message.startsWith(`${code}:`)) return error.message.split(", ")[0]!;
  return error.message;
}
