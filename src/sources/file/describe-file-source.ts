/** Spark's description of a file source (progress and checkpoint metadata), whatever its format. */
export function describeFileSource(path: string): string {
  return `FileStreamSource[${path}]`;
}
