/**
 * `part-<batchId>-<task>.<ext>`, both numbers five digits at least (`part-00007-00000.json`).
 * Names are a function of the batch and the task, not random as Spark's (`part-<task>-<uuid>`): a
 * batch that runs again after a crash writes the same names and so replaces what the crashed run
 * left, instead of leaving orphans behind on every crash. Leftovers are never read either way,
 * because readers take only the files the manifest lists.
 */
export function partFileName(batchId: number, task: number, extension: string): string {
  return `part-${String(batchId).padStart(5, "0")}-${String(task).padStart(5, "0")}.${extension}`;
}
