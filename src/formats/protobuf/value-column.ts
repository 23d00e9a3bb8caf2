/**
 * Offsets that leave `bytes` or go backwards would make records overlap or read foreign memory: a
 * caller's bug, refused before any record is read. (decodeJsonValues checks its input alike.)
 */
export function checkValueColumn(bytes: Uint8Array, offsets: Int32Array, validity: Uint8Array | null, numRecords: number): void {
  if (validity !== null && validity.length < numRecords) throw new RangeError(`validity has ${validity.length} entries for ${numRecords} records`);
  for (let i = 0; i <= numRecords && numRecords > 0; i++) {
    const at = offsets[i]!;
    const floor = i === 0 ? 0 : offsets[i - 1]!;
    if (at < floor) throw new RangeError(i === 0 ? `offsets[0] is ${at}, before the start of the bytes` : `offsets[${i}] is ${at}, before offsets[${i - 1}] (${floor})`);
  }
  if (numRecords > 0 && offsets[numRecords]! > bytes.length) {
    throw new RangeError(`offsets[${numRecords}] is ${offsets[numRecords]}, past the end of the ${bytes.length} bytes`);
  }
}
