/** A byte range of a file; a line belongs to the split in which it starts. */
export interface FileSplit {
  readonly kind: "file";
  readonly path: string;
  readonly start: number;
  readonly end: number;
}

export function describeFileSplit(split: FileSplit): string {
  return `${split.path} bytes [${split.start}, ${split.end})`;
}
