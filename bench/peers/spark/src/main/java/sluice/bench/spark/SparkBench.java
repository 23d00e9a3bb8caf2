package sluice.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.unix_millis;
import static org.apache.spark.sql.functions.window;

import java.io.File;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Spark Structured Streaming peer of the Sluice benchmark (see bench/peers/README.md).
 *
 * <pre>
 * SparkBench --workload W1|W2|W3|W4 --bootstrap host:port --input topic --output topic
 *            --ads file.jsonl --state-dir dir --run-id id
 * </pre>
 *
 * Prints one stdout line, {@code BENCH_STARTED <epoch ms>}, right before the query starts, then
 * runs until the process is terminated. Everything else goes to stderr.
 */
public final class SparkBench {

  private static final Set<String> OPTIONS =
      Set.of("workload", "bootstrap", "input", "output", "ads", "state-dir", "run-id");
  /** Optional: the variant (default when absent) and the phase (not used: no Spark variant commits on a timer). */
  private static final Set<String> OPTIONAL = Set.of("variant", "phase");

  /** Yahoo Streaming Benchmark ad event (W1, W4). */
  private static final StructType AD_EVENT = new StructType()
      .add("user_id", DataTypes.StringType)
      .add("page_id", DataTypes.StringType)
      .add("ad_id", DataTypes.StringType)
      .add("ad_type", DataTypes.StringType)
      .add("event_type", DataTypes.StringType)
      .add("event_time", DataTypes.StringType)
      .add("ip_address", DataTypes.StringType);

  /** Nexmark bid (W2). */
  private static final StructType BID = new StructType()
      .add("auction", DataTypes.LongType)
      .add("bidder", DataTypes.LongType)
      .add("price", DataTypes.LongType)
      .add("channel", DataTypes.StringType)
      .add("url", DataTypes.StringType)
      .add("dateTime", DataTypes.LongType)
      .add("extra", DataTypes.StringType);

  /** High-cardinality keyed value (W3). */
  private static final StructType KEYED = new StructType()
      .add("key", DataTypes.StringType)
      .add("value", DataTypes.LongType);

  /** Ads table (W1). */
  private static final StructType AD = new StructType()
      .add("ad_id", DataTypes.StringType)
      .add("campaign_id", DataTypes.StringType);

  /** Set when the JVM begins to shut down (SIGTERM): the query then fails as Spark stops. */
  private static volatile boolean shuttingDown = false;

  private SparkBench() {}

  public static void main(String[] args) {
    // stdout carries exactly one line (BENCH_STARTED); anything a library prints goes to stderr.
    PrintStream stdout = System.out;
    System.setOut(System.err);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> shuttingDown = true, "bench-shutdown"));
    try {
      run(parseArgs(args), stdout);
    } catch (Throwable e) {
      if (shuttingDown) {
        // Terminated by the runner: Spark's own shutdown hook stops the context, which fails the
        // running query. Not an error, and System.exit must not be called during shutdown.
        System.err.println("spark peer: shutting down");
        return;
      }
      System.err.println("spark peer failed: " + e);
      e.printStackTrace(System.err);
      System.err.flush();
      System.exit(1);
    }
  }

  private static Map<String, String> parseArgs(String[] args) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")
          || !(OPTIONS.contains(a.substring(2)) || OPTIONAL.contains(a.substring(2)))) {
        throw new IllegalArgumentException("unknown argument: " + a);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + a);
      }
      opts.put(a.substring(2), args[++i]);
    }
    for (String o : OPTIONS) {
      if (!opts.containsKey(o)) {
        throw new IllegalArgumentException("missing --" + o);
      }
    }
    if (!Set.of("W1", "W2", "W3", "W4").contains(opts.get("workload"))) {
      throw new IllegalArgumentException("unknown workload: " + opts.get("workload"));
    }
    Variant.of(opts.getOrDefault("variant", "default"), opts.get("workload"));
    return opts;
  }

  /**
   * How the query runs: {@code default} (local[2], shuffle partitions 2, everything else as
   * shipped); {@code tuned} (the Kafka sink's producer batching set, RocksDB state with changelog
   * checkpointing where the state is large); {@code mopt-<n>} (tuned, plus maxOffsetsPerTrigger
   * n: one point of a micro-batch size sweep); {@code realtime} (W4 only: tuned sink, Spark's
   * real-time mode, which needs a task slot per input partition).
   */
  record Variant(boolean tuned, long maxOffsetsPerTrigger, boolean realTime) {
    static Variant of(String name, String workload) {
      if ("default".equals(name)) {
        return new Variant(false, 0, false);
      }
      if ("tuned".equals(name)) {
        return new Variant(true, 0, false);
      }
      if (name.matches("mopt-[1-9][0-9]*")) {
        return new Variant(true, Long.parseLong(name.substring(5)), false);
      }
      if ("realtime".equals(name)) {
        if (!"W4".equals(workload)) {
          throw new IllegalArgumentException(
              "--variant realtime runs W4 only: real-time mode allows stateless queries");
        }
        return new Variant(true, 0, true);
      }
      throw new IllegalArgumentException(
          "unknown --variant " + name + ": use default, tuned, mopt-<n> or realtime");
    }
  }

  private static void run(Map<String, String> opts, PrintStream stdout) throws Exception {
    String workload = opts.get("workload");
    String bootstrap = opts.get("bootstrap");
    String runId = opts.get("run-id");
    File stateDir = new File(opts.get("state-dir")).getAbsoluteFile();
    Variant variant = Variant.of(opts.getOrDefault("variant", "default"), workload);

    SparkSession.Builder builder = SparkSession.builder()
        .appName("sluice-bench-" + workload + "-" + runId)
        // Real-time mode runs one long-lived task per input partition (4), all at once: it needs
        // as many task slots, not cores (the machine still has 2).
        .master(variant.realTime() ? "local[4]" : "local[2]")
        // Two shuffle partitions for two cores in every variant (Spark's 200 are for clusters).
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // Streaming queries run without AQE anyway; turning it off up front saves a warning.
        .config("spark.sql.adaptive.enabled", "false");
    if (variant.tuned() && ("W2".equals(workload) || "W3".equals(workload))) {
      // W2 holds 10,000 auctions in 5 overlapping windows, W3 1 M keys: state off the JVM heap,
      // and checkpoints that write only the changes (Spark's advice for large state).
      builder = builder
          .config("spark.sql.streaming.stateStore.providerClass",
              "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
          .config("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");

    var reader = spark.readStream()
        .format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", opts.get("input"))
        .option("startingOffsets", "earliest")
        .option("failOnDataLoss", "false")
        .option("groupIdPrefix", "sluice-bench-spark-" + runId);
    if (variant.maxOffsetsPerTrigger() > 0) {
      reader = reader.option("maxOffsetsPerTrigger", variant.maxOffsetsPerTrigger());
    }
    Dataset<Row> kafka = reader.load();

    Dataset<Row> results;
    switch (workload) {
      case "W1": {
        Dataset<Row> ads = spark.read().schema(AD).json(opts.get("ads"));
        Dataset<Row> views = parse(kafka, AD_EVENT)
            .withWatermark("timestamp", "1 second")
            .filter(col("event_type").equalTo("view"))
            .select(col("ad_id"), col("timestamp"));
        Dataset<Row> counts = views.join(ads, "ad_id")
            .groupBy(window(col("timestamp"), "10 seconds"), col("campaign_id"))
            .agg(count(lit(1)).as("count"));
        results = counts.select(toJson(
            windowStart(), windowEnd(), col("campaign_id").as("key"), col("count")));
        break;
      }
      case "W2": {
        Dataset<Row> counts = parse(kafka, BID)
            .withWatermark("timestamp", "1 second")
            .groupBy(window(col("timestamp"), "10 seconds", "2 seconds"), col("auction"))
            .agg(count(lit(1)).as("count"));
        results = counts.select(toJson(
            windowStart(), windowEnd(), col("auction").cast("string").as("key"), col("count")));
        break;
      }
      case "W3": {
        Dataset<Row> aggs = parse(kafka, KEYED)
            .withWatermark("timestamp", "1 second")
            .groupBy(window(col("timestamp"), "10 seconds"), col("key"))
            .agg(count(lit(1)).as("count"), sum(col("value")).as("sum"));
        results = aggs.select(toJson(
            windowStart(), windowEnd(), col("key"), col("count"), col("sum")));
        break;
      }
      case "W4": {
        Dataset<Row> views = parse(kafka, AD_EVENT)
            .filter(col("event_type").equalTo("view"));
        results = views.select(toJson(
            col("user_id"), col("ad_id"), unix_millis(col("timestamp")).as("ts")));
        break;
      }
      default:
        throw new IllegalArgumentException("unknown workload: " + workload);
    }

    var writer = results.writeStream()
        .format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", opts.get("output"))
        .option("checkpointLocation", new File(stateDir, "checkpoint").getPath())
        .queryName("sluice-bench-" + workload)
        .outputMode("append");
    if (variant.tuned()) {
      // The sink's producer at its defaults sends each partition's records as soon as it can
      // (linger.ms 0 in kafka-clients 3.9) in 16 KB batches: wait up to 20 ms to fill 512 KB ones.
      writer = writer.option("kafka.linger.ms", "20").option("kafka.batch.size", String.valueOf(512 << 10));
    }
    if (variant.realTime()) {
      // Real-time mode: long-running tasks process records as they arrive and checkpoint every
      // 5 minutes; it supports the update output mode only (the same rows for a stateless query).
      writer = writer.outputMode("update").trigger(Trigger.RealTime("5 minutes"));
    }

    stdout.println("BENCH_STARTED " + System.currentTimeMillis());
    stdout.flush();
    StreamingQuery query = writer.start();
    query.awaitTermination();
    // A streaming query over Kafka never ends on its own; reaching here means it was stopped.
    throw new IllegalStateException("streaming query terminated");
  }

  /** The JSON value's fields plus the Kafka record timestamp (the event time). */
  private static Dataset<Row> parse(Dataset<Row> kafka, StructType schema) {
    return kafka
        .select(from_json(col("value").cast("string"), schema).as("v"), col("timestamp"))
        .select(col("v.*"), col("timestamp"));
  }

  private static Column windowStart() {
    return unix_millis(col("window.start")).as("window_start");
  }

  private static Column windowEnd() {
    return unix_millis(col("window.end")).as("window_end");
  }

  private static Column toJson(Column... fields) {
    return to_json(struct(fields)).as("value");
  }
}
