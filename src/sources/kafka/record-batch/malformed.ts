/** Malformed bytes inside a batch; the batch decoder adds topic, partition and offset. */
export class MalformedBatchError extends Error {}
