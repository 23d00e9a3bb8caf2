import { RemoteUnsupportedError } from "../../errors/errors.js";
import type { ExprOf, ProcessorRef, UdfRef } from "../../expr/ast.js";

/**
 * Why a plan cannot run on a Spark Connect server, one message per case: what Spark lacks and
 * what to use instead. Shared by the compiler (which meets them while translating) and
 * `assertRunsRemotely` (which looks for them before anything is sent).
 */

const EMBEDDED = 'or run the query in an embedded session (new Session() without "remote")';

export function udfRefused(fn: UdfRef): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    `the ${fn.form === "vector" ? "vectorUdf" : "udf"} "${fn.name}" is TypeScript, which a Spark Connect server cannot run: ` +
      `write it with Spark's built-in functions (col, when, concat, ...) ${EMBEDDED}`,
    "UDF",
  );
}

export function processorRefused(processor: ProcessorRef): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    `transformWithState runs the TypeScript processor "${processor.name}", which a Spark Connect server cannot run ` +
      `(its transformWithState takes JVM or Python processors only): express the logic with groupBy/agg, dropDuplicates and joins, ${EMBEDDED}`,
    "TRANSFORM_WITH_STATE",
  );
}

export function memoryStreamRefused(): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    "a memory stream is fed from this process, which a Spark Connect server cannot read from: " +
      `write the rows to JSON or Parquet files (or a Kafka topic) and readStream those, ${EMBEDDED}`,
    "MEMORY_STREAM",
  );
}

export function arrowFilesRefused(path: string): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    `Spark has no source for Arrow IPC files (${path}): write them as Parquet and read format "parquet", ${EMBEDDED}`,
    "ARROW_FILES",
  );
}

export function registryRefused(fn: string): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    `${fn} with a schema registry cannot run on a Spark Connect server: open-source Spark has no schema registry client; ` +
      `decode the values in an embedded session, or send plain JSON values and use from_json`,
    "SCHEMA_REGISTRY",
  );
}

export function valueFormatRefused(fn: string, format: string): RemoteUnsupportedError {
  return new RemoteUnsupportedError(
    `${fn} (${format}) needs the spark-${format} package on the Spark Connect server, and Sluice's ${format} schemas are not Spark's: ` +
      `use JSON values (from_json / to_json) remotely, ${EMBEDDED}`,
    "VALUE_FORMAT",
  );
}

export function sourceOptionRefused(where: string, option: string, why: string): RemoteUnsupportedError {
  return new RemoteUnsupportedError(`${where}: option ${option} is Sluice's own and Spark's source has none like it (${why}); remove it, ${EMBEDDED}`, "SOURCE_OPTION");
}

export function decodeRefusal(e: ExprOf<"decodeValues">): RemoteUnsupportedError | null {
  if (e.registry !== null) return registryRefused(`from_${e.format.kind}()`);
  return e.format.kind === "json" ? null : valueFormatRefused(`from_${e.format.kind}()`, e.format.kind);
}

export function encodeRefusal(e: ExprOf<"encodeValues">): RemoteUnsupportedError {
  return e.registry !== null ? registryRefused(`to_${e.encoding.kind}()`) : valueFormatRefused(`to_${e.encoding.kind}()`, e.encoding.kind);
}
