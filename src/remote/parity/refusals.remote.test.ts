// What a remote session refuses, one case a test: the parts of a query only this process can run (TypeScript
// code, data fed from here, Sluice's own sinks and formats). Each is refused by start() with a
// RemoteUnsupportedError that says why and what to do instead, before anything is sent: no query runs, on the
// server or here.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, timestamp_seconds } from "../../api/functions.js";
import { from_avro } from "../../api/value-functions.js";
import type { Session } from "../../api/session.js";
import { statefulProcessor } from "../../api/stateful-processor.js";
import { udf } from "../../api/udf.js";
import { RemoteUnsupportedError, type RemoteUnsupportedReason } from "../../errors/errors.js";
import { kafkaBootstrap } from "../../testing/kafka.js";
import { PROCESSORS, UDFS } from "../../testing/scenarios/transform-with-state.js";
import { withRemoteSession } from "../../testing/spark-connect.js";
import { tempDirs } from "../../testing/temp-dirs.js";
import { activeOnServer } from "../../testing/remote-parity.js";

const folder = tempDirs("sluice-parity-refused-");
const Event = z.object({ key: z.string(), time: z.int() });
const EMBEDDED = 'or run the query in an embedded session (new Session() without "remote")';

/** A JSON file stream of events (the folder exists, so the query itself would be valid on Spark). */
const events = (session: Session) => session.readStream.schema(Event).json(folder().dir);
const kafkaInput = (session: Session) => session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", "sluice-parity-never-read");

/**
 * Asserts that `start` throws RemoteUnsupportedError for `reason` with exactly `message`, and that no query runs,
 * here or on the server.
 */
async function refused(session: Session, start: () => unknown, reason: RemoteUnsupportedReason, message: string): Promise<void> {
  let err: unknown = null;
  try {
    start();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(RemoteUnsupportedError);
  expect(err).toMatchObject({ name: "RemoteUnsupportedError", reason, message });
  expect(session.streams.active).toEqual([]);
  expect(await activeOnServer(session)).toEqual([]);
}

describe("refused by a remote session at start()", () => {
  it("(the server's list of active queries, which the refusals check, has the ones that did start)", () =>
    withRemoteSession(async (session) => {
      const query = events(session).writeStream.format("memory").queryName("parity_started").start();
      try {
        await query.processAllAvailable();
        expect(await activeOnServer(session)).toEqual(["parity_started"]);
      } finally {
        await query.stop();
      }
      expect(await activeOnServer(session)).toEqual([]);
    }));

  it("a TypeScript UDF", () =>
    withRemoteSession(async (session) => {
      const addOne = udf(UDFS, "addOne", "int32");
      await refused(
        session,
        () => events(session).select(addOne(col("time")).alias("next")).writeStream.format("memory").queryName("refused_udf").start(),
        "UDF",
        `the udf "addOne" is TypeScript, which a Spark Connect server cannot run: write it with Spark's built-in functions (col, when, concat, ...) ${EMBEDDED}`,
      );
    }));

  it("a transformWithState processor", () =>
    withRemoteSession(async (session) => {
      const processor = statefulProcessor(PROCESSORS, "RunningCount", { outputSchema: z.object({ key: z.string(), count: z.string() }) });
      const counts = events(session).select(col("key").alias("value")).groupByKey("value").transformWithState(processor, "none", "update");
      await refused(
        session,
        () => counts.writeStream.outputMode("update").format("memory").queryName("refused_tws").start(),
        "TRANSFORM_WITH_STATE",
        `transformWithState runs the TypeScript processor "RunningCount", which a Spark Connect server cannot run (its transformWithState takes JVM or Python processors only): express the logic with groupBy/agg, dropDuplicates and joins, ${EMBEDDED}`,
      );
    }));

  it("foreachBatch", () =>
    withRemoteSession(async (session) => {
      await refused(
        session,
        () => events(session).writeStream.foreachBatch(() => undefined).start(),
        "FOREACH_BATCH",
        "foreachBatch calls a TypeScript function with each batch, and a Spark Connect server cannot call into this process: write to a sink Spark has (kafka, parquet or json files, memory, console) and read the results from there, or run the query in an embedded session",
      );
    }));

  it("a memory stream", () =>
    withRemoteSession(async (session) => {
      const fed = session.memoryStream(Event);
      await refused(
        session,
        () => fed.toDF().writeStream.format("memory").queryName("refused_memory_stream").start(),
        "MEMORY_STREAM",
        `a memory stream is fed from this process, which a Spark Connect server cannot read from: write the rows to JSON or Parquet files (or a Kafka topic) and readStream those, ${EMBEDDED}`,
      );
    }));

  it.each([
    ["kafka.transactional.id.prefix", "parity"],
    ["exactlyOnce", true],
  ] as const)("Kafka transactions (%s)", (option, value) =>
    withRemoteSession(async (session) => {
      await refused(
        session,
        () =>
          events(session)
            .select(col("key").alias("value"))
            .writeStream.format("kafka")
            .option("kafka.bootstrap.servers", kafkaBootstrap())
            .option("topic", "sluice-parity-never-written")
            .option(option, value)
            .option("checkpointLocation", folder().path("checkpoint"))
            .start(),
        "KAFKA_TRANSACTIONS",
        "exactly-once Kafka writes (kafka.transactional.id / transactions) are Sluice's own: Spark's Kafka sink writes at least once. Drop the transactional options to run on Spark, or run the query in an embedded session",
      );
    }));

  it("the Arrow file sink", () =>
    withRemoteSession(async (session) => {
      const out = folder();
      await refused(
        session,
        () =>
          events(session)
            .withColumn("eventTime", timestamp_seconds(col("time")))
            .writeStream.format("arrow")
            .option("checkpointLocation", out.path("checkpoint"))
            .start(out.path("files")),
        "ARROW_FILES",
        'Spark has no Arrow IPC file sink: write "parquet" or "json" files when the query runs on a Spark Connect server',
      );
    }));

  it("Avro values (from_avro)", () =>
    withRemoteSession(async (session) => {
      await refused(
        session,
        () => kafkaInput(session).load().select(from_avro(col("value"), Event)).writeStream.format("memory").queryName("refused_avro").start(),
        "VALUE_FORMAT",
        `from_avro() (avro) needs the spark-avro package on the Spark Connect server, and Sluice's avro schemas are not Spark's: use JSON values (from_json / to_json) remotely, ${EMBEDDED}`,
      );
    }));

  it("values decoded with a schema registry", () =>
    withRemoteSession(async (session) => {
      await refused(
        session,
        () =>
          kafkaInput(session)
            .load()
            .select(from_avro(col("value"), Event, { "schema.registry.url": "http://127.0.0.1:1" }))
            .writeStream.format("memory")
            .queryName("refused_registry")
            .start(),
        "SCHEMA_REGISTRY",
        "from_avro() with a schema registry cannot run on a Spark Connect server: open-source Spark has no schema registry client; decode the values in an embedded session, or send plain JSON values and use from_json",
      );
    }));
});
