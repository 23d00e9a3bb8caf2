/**
 * Live tables over the Postgres protocol: a rate stream (5 events a second) counted per
 * 10-second window and per bucket (value % 3) into memory-sink tables, served by `session.serveSql()` while
 * the queries run. Query it from another terminal with psql, the pg package or a BI tool:
 *
 *   npx tsx scripts/sql-demo.ts [port]                  # default port 5432; password from SLUICE_SQL_PASSWORD
 *   PGPASSWORD=demo psql "postgresql://sluice@127.0.0.1:5432/sluice"
 *   sluice=> SELECT * FROM per_window ORDER BY window.start DESC LIMIT 3;
 *
 * Ctrl-C stops the queries and the server.
 */
import { col, count, max, Session, window } from "../src/index.js";

const port = Number(process.argv[2] ?? 5432);
const password = process.env.SLUICE_SQL_PASSWORD ?? "demo";
const session = new Session({ workers: 1 });

const events = session.readStream.format("rate").option("rowsPerSecond", 5).load();
const perWindow = events
  .groupBy(window(col("timestamp"), "10 seconds"))
  .agg(count().alias("events"), max(col("value")).alias("last_value"))
  .writeStream.format("memory")
  .queryName("per_window")
  .outputMode("complete")
  .trigger({ processingTime: "1 second" })
  .start();
const perBucket = events
  .select(col("value").mod(3).alias("bucket"))
  .groupBy("bucket")
  .agg(count().alias("events"))
  .writeStream.format("memory")
  .queryName("per_bucket")
  .outputMode("complete")
  .trigger({ processingTime: "1 second" })
  .start();

const server = await session.serveSql({ port, password });
process.stdout.write(`queries ${perWindow.name} and ${perBucket.name} are running; query their tables: PGPASSWORD=${password} psql "${server.url}"\n`);

process.once("SIGINT", () => {
  void session.stop().then(() => process.exit(0));
});
