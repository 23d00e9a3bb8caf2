/** Spark's bad-record modes for decoders: keep as nulls (and the raw text), drop and count, or fail. */
export type ReadMode = "PERMISSIVE" | "DROPMALFORMED" | "FAILFAST";
