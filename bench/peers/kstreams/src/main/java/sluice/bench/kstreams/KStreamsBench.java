package sluice.bench.kstreams;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.Suppressed.BufferConfig;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Kafka Streams peer of the Sluice benchmark (contract: bench/peers/README.md).
 *
 * <p>Event time is the Kafka record timestamp (default timestamp extractor). Windowed queries use
 * 10 s windows with 1 s grace and emit each window once, when it closes, through
 * {@code suppress(untilWindowCloses(unbounded()))}.
 */
public final class KStreamsBench {

  private static final Duration WINDOW = Duration.ofSeconds(10);
  private static final Duration GRACE = Duration.ofSeconds(1);
  private static final Duration HOP = Duration.ofSeconds(2);
  /** The runner sends SIGKILL 10 s after SIGTERM; close well before that. */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(7);

  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final ObjectReader AD_EVENT = MAPPER.readerFor(AdEvent.class);
  private static final ObjectReader BID = MAPPER.readerFor(Bid.class);
  private static final ObjectReader KEYED_VALUE = MAPPER.readerFor(KeyedValue.class);
  private static final ObjectReader AD = MAPPER.readerFor(Ad.class);
  private static final ObjectWriter WINDOW_COUNT = MAPPER.writerFor(WindowCount.class);
  private static final ObjectWriter WINDOW_COUNT_SUM = MAPPER.writerFor(WindowCountSum.class);
  private static final ObjectWriter VIEW = MAPPER.writerFor(View.class);

  private KStreamsBench() {}

  // ---------------------------------------------------------------- JSON shapes

  /** W1/W4 input: a Yahoo Streaming Benchmark ad event (only the fields the queries read). */
  public static final class AdEvent {
    @JsonProperty("user_id")
    public String userId;

    @JsonProperty("ad_id")
    public String adId;

    @JsonProperty("event_type")
    public String eventType;
  }

  /** W2 input: a Nexmark bid (only the field the query reads). */
  public static final class Bid {
    @JsonProperty("auction")
    public long auction;
  }

  /** W3 input. */
  public static final class KeyedValue {
    @JsonProperty("key")
    public String key;

    @JsonProperty("value")
    public long value;
  }

  /** A line of the --ads file. */
  public static final class Ad {
    @JsonProperty("ad_id")
    public String adId;

    @JsonProperty("campaign_id")
    public String campaignId;
  }

  /** W1/W2 output. */
  public record WindowCount(
      @JsonProperty("window_start") long windowStart,
      @JsonProperty("window_end") long windowEnd,
      @JsonProperty("key") String key,
      @JsonProperty("count") long count) {}

  /** W3 output. */
  public record WindowCountSum(
      @JsonProperty("window_start") long windowStart,
      @JsonProperty("window_end") long windowEnd,
      @JsonProperty("key") String key,
      @JsonProperty("count") long count,
      @JsonProperty("sum") long sum) {}

  /** W4 output. */
  public record View(
      @JsonProperty("user_id") String userId,
      @JsonProperty("ad_id") String adId,
      @JsonProperty("ts") long ts) {}

  private static <T> T read(ObjectReader reader, String json) {
    try {
      return reader.readValue(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed JSON value: " + json, e);
    }
  }

  private static String write(ObjectWriter writer, Object value) {
    try {
      return writer.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- W3 aggregate state

  /** W3 aggregate: count and sum of one key's window. Immutable. */
  public record CountSum(long count, long sum) {
    static final CountSum ZERO = new CountSum(0, 0);

    CountSum add(long value) {
      return new CountSum(count + 1, sum + value);
    }
  }

  /** Compact binary serde for {@link CountSum}: two big-endian longs, 16 bytes. */
  static final class CountSumSerde implements Serde<CountSum> {
    @Override
    public Serializer<CountSum> serializer() {
      return (topic, v) ->
          v == null ? null : ByteBuffer.allocate(16).putLong(v.count()).putLong(v.sum()).array();
    }

    @Override
    public Deserializer<CountSum> deserializer() {
      return (topic, bytes) -> {
        if (bytes == null) {
          return null;
        }
        if (bytes.length != 16) {
          throw new IllegalArgumentException("CountSum needs 16 bytes, got " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new CountSum(b.getLong(), b.getLong());
      };
    }
  }

  // ---------------------------------------------------------------- topologies

  private static TimeWindows tumbling() {
    return TimeWindows.ofSizeAndGrace(WINDOW, GRACE);
  }

  private static KStream<String, String> source(StreamsBuilder b, Args a) {
    return b.stream(a.input, Consumed.with(Serdes.String(), Serdes.String()));
  }

  private static void windowCountsTo(KTable<Windowed<String>, Long> finals, String output) {
    finals
        .toStream()
        .map(
            (wk, count) ->
                KeyValue.pair(
                    wk.key(),
                    write(
                        WINDOW_COUNT,
                        new WindowCount(
                            wk.window().start(), wk.window().end(), wk.key(), count))))
        .to(output, Produced.with(Serdes.String(), Serdes.String()));
  }

  /**
   * W1: views only, inner join of ad_id with the in-memory ads table, count per campaign_id in 10 s
   * tumbling windows. Re-keying by campaign makes groupByKey repartition; the repartitioned record
   * carries the campaign key and an empty value (the count reads no field).
   */
  static Topology w1(Args a, Map<String, String> campaignOfAd) {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> byCampaign =
        source(b, a)
            .mapValues(v -> (AdEvent) read(AD_EVENT, v))
            .filter((k, e) -> "view".equals(e.eventType))
            .map((k, e) -> KeyValue.pair(campaignOfAd.get(e.adId), ""))
            .filter((campaign, v) -> campaign != null);
    windowCountsTo(finalCounts(byCampaign, "w1", "by-campaign", tumbling()), a.output);
    return b.build();
  }

  /** W2: count per auction in 10 s windows sliding every 2 s. */
  static Topology w2(Args a) {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> byAuction =
        source(b, a).map((k, v) -> KeyValue.pair(Long.toString(((Bid) read(BID, v)).auction), ""));
    windowCountsTo(finalCounts(byAuction, "w2", "by-auction", tumbling().advanceBy(HOP)), a.output);
    return b.build();
  }

  /**
   * Final window counts per key: repartition by key (topic {@code <run-id>-<name>-<by>-repartition}),
   * count in the windows, and hold each window's count until the window closes.
   */
  static KTable<Windowed<String>, Long> finalCounts(
      KStream<String, String> keyed, String name, String by, TimeWindows windows) {
    return keyed
        .groupByKey(Grouped.with(name + "-" + by, Serdes.String(), Serdes.String()))
        .windowedBy(windows)
        .count(
            Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(name + "-counts")
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()))
        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName(name + "-final"));
  }

  /** W3: count and sum of value per key in 10 s tumbling windows, in one aggregate. */
  static Topology w3(Args a) {
    StreamsBuilder b = new StreamsBuilder();
    Serde<CountSum> countSumSerde = new CountSumSerde();
    source(b, a)
        .map(
            (k, v) -> {
              KeyedValue r = read(KEYED_VALUE, v);
              return KeyValue.pair(r.key, r.value);
            })
        .groupByKey(Grouped.with("w3-by-key", Serdes.String(), Serdes.Long()))
        .windowedBy(tumbling())
        .aggregate(
            () -> CountSum.ZERO,
            (key, value, agg) -> agg.add(value),
            Materialized.<String, CountSum, WindowStore<Bytes, byte[]>>as("w3-aggregates")
                .withKeySerde(Serdes.String())
                .withValueSerde(countSumSerde))
        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("w3-final"))
        .toStream()
        .map(
            (wk, cs) ->
                KeyValue.pair(
                    wk.key(),
                    write(
                        WINDOW_COUNT_SUM,
                        new WindowCountSum(
                            wk.window().start(),
                            wk.window().end(),
                            wk.key(),
                            cs.count(),
                            cs.sum()))))
        .to(a.output, Produced.with(Serdes.String(), Serdes.String()));
    return b.build();
  }

  /** W4: views only, one {user_id, ad_id, ts} per view, ts = the input record's timestamp. */
  static Topology w4(Args a) {
    StreamsBuilder b = new StreamsBuilder();
    source(b, a)
        .processValues(ViewProjection::new)
        .to(a.output, Produced.with(Serdes.String(), Serdes.String()));
    return b.build();
  }

  /** Parses once, drops non-views, forwards the projection stamped with the record timestamp. */
  static final class ViewProjection implements FixedKeyProcessor<String, String, String> {
    private FixedKeyProcessorContext<String, String> context;

    @Override
    public void init(FixedKeyProcessorContext<String, String> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, String> record) {
      AdEvent e = read(AD_EVENT, record.value());
      if ("view".equals(e.eventType)) {
        context.forward(
            record.withValue(write(VIEW, new View(e.userId, e.adId, record.timestamp()))));
      }
    }
  }

  // ---------------------------------------------------------------- setup

  static Map<String, String> loadAds(Path file) throws IOException {
    Map<String, String> campaignOfAd = new HashMap<>();
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        Ad ad = read(AD, line);
        if (ad.adId == null || ad.campaignId == null) {
          throw new IllegalArgumentException("ads line without ad_id/campaign_id: " + line);
        }
        campaignOfAd.put(ad.adId, ad.campaignId);
      }
    }
    return campaignOfAd;
  }

  static final class Args {
    String workload;
    String bootstrap;
    String input;
    String output;
    String ads;
    String stateDir;
    String runId;
    /** default, throughput or latency: see {@link #props}. */
    String variant;
    /** drain or latency: a drain commits often so that its end is not the next commit. */
    String phase;

    static Args parse(String[] argv) {
      Map<String, String> m = new LinkedHashMap<>();
      for (int i = 0; i < argv.length; i++) {
        String flag = argv[i];
        if (!flag.startsWith("--") || i + 1 >= argv.length) {
          throw new IllegalArgumentException("expected --flag value, got: " + flag);
        }
        m.put(flag.substring(2), argv[++i]);
      }
      Args a = new Args();
      a.workload = required(m, "workload");
      a.bootstrap = required(m, "bootstrap");
      a.input = required(m, "input");
      a.output = required(m, "output");
      a.ads = m.get("ads");
      a.stateDir = required(m, "state-dir");
      a.runId = required(m, "run-id");
      a.variant = m.getOrDefault("variant", "default");
      a.phase = m.getOrDefault("phase", "latency");
      if (!List.of("default", "throughput", "latency").contains(a.variant)) {
        throw new IllegalArgumentException(
            "unknown --variant " + a.variant + ": use default, throughput or latency");
      }
      if (!List.of("drain", "latency").contains(a.phase)) {
        throw new IllegalArgumentException("unknown --phase " + a.phase + ": use drain or latency");
      }
      m.keySet()
          .removeAll(
              List.of(
                  "workload",
                  "bootstrap",
                  "input",
                  "output",
                  "ads",
                  "state-dir",
                  "run-id",
                  "variant",
                  "phase"));
      if (!m.isEmpty()) {
        throw new IllegalArgumentException("unknown arguments: " + m.keySet());
      }
      return a;
    }

    private static String required(Map<String, String> m, String name) {
      String v = m.get(name);
      if (v == null || v.isEmpty()) {
        throw new IllegalArgumentException("missing --" + name);
      }
      return v;
    }
  }

  static Topology topology(Args a) throws IOException {
    switch (a.workload) {
      case "W1":
        if (a.ads == null) {
          throw new IllegalArgumentException("W1 needs --ads");
        }
        return w1(a, loadAds(Path.of(a.ads)));
      case "W2":
        return w2(a);
      case "W3":
        return w3(a);
      case "W4":
        return w4(a);
      default:
        throw new IllegalArgumentException("unknown --workload " + a.workload);
    }
  }

  static Properties props(Args a) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, a.runId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, a.bootstrap);
    // Kafka Streams' default of one stream thread. Its input tasks are not kept in step with each
    // other: with two threads on a pre-loaded topic one thread's tasks ran seconds of event time
    // ahead of the other's, so the slower tasks' records reached the aggregation after the 1 s
    // grace and were dropped (23% of W1's views at 5 M events; W2 and W3 wrong in every run).
    // With one thread W1 and W2 came out exact. KSTREAMS_THREADS overrides it.
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.parseInt(System.getenv().getOrDefault("KSTREAMS_THREADS", "1")));
    p.put(StreamsConfig.STATE_DIR_CONFIG, a.stateDir);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // processing.guarantee at its default (at-least-once) in every variant.
    switch (a.variant) {
      case "throughput":
        // The record cache holds the windows' counts between commits, so each key's updates are
        // folded in memory instead of going to RocksDB and the changelog one by one: sized to the
        // state (W3: 1 M keys of open windows; the others hold at most 50,000 window-keys).
        p.put(
            StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG,
            "W3".equals(a.workload) ? 1L << 30 : 256L << 20);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1_000);
        // Larger produce requests (results, repartition and changelog records). Fetches stay at
        // 1 MB per partition: a larger fetch lets one input task run further ahead of the others
        // in event time, and their records then reach the windows after the 1 s grace (see
        // README.md, "Stream time").
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 256 << 10);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 100);
        break;
      case "latency":
        // Every update goes downstream at once (no cache), the suppression buffer emits a window
        // as soon as stream time passes its end, and nothing waits in the producer.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 50);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
        break;
      default:
        // Defaults: 10 MB cache, 30 s commit, producer linger.ms 100.
        break;
    }
    if ("drain".equals(a.phase) && !"latency".equals(a.variant)) {
      // Windowed results leave the record cache only when Kafka Streams commits: at the default
      // 30 s, a drain would end at the first commit after the last record, not when the work is
      // done. Committing every 100 ms bounds that error to a tenth of a second.
      p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    }
    return p;
  }

  public static void main(String[] argv) {
    KafkaStreams streams;
    try {
      Args a = Args.parse(argv);
      Topology topology = topology(a);
      streams = new KafkaStreams(topology, props(a));
    } catch (IOException e) {
      System.err.println("kstreams peer: " + e);
      System.exit(2);
      return;
    } catch (RuntimeException e) {
      System.err.println("kstreams peer: " + e.getMessage());
      e.printStackTrace(System.err);
      System.exit(2);
      return;
    }

    CountDownLatch done = new CountDownLatch(1);
    AtomicBoolean stopping = new AtomicBoolean(false);
    AtomicReference<Throwable> fatal = new AtomicReference<>();

    streams.setUncaughtExceptionHandler(
        e -> {
          fatal.compareAndSet(null, e);
          return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    streams.setStateListener(
        (next, prev) -> {
          if (next == KafkaStreams.State.ERROR
              || (next == KafkaStreams.State.NOT_RUNNING && !stopping.get())) {
            fatal.compareAndSet(
                null, new IllegalStateException("Kafka Streams went " + prev + " -> " + next));
            done.countDown();
          }
        });

    Thread hook =
        new Thread(
            () -> {
              stopping.set(true);
              boolean closed = streams.close(CLOSE_TIMEOUT);
              if (!closed) {
                System.err.println("kstreams peer: close timed out after " + CLOSE_TIMEOUT);
              }
              done.countDown();
            },
            "kstreams-peer-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);

    System.out.println("BENCH_STARTED " + System.currentTimeMillis());
    System.out.flush();
    streams.start();

    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (stopping.get()) {
      return; // SIGTERM: the shutdown hook closes the client; the JVM exits after it.
    }
    Throwable t = fatal.get();
    System.err.println("kstreams peer: fatal: " + t);
    if (t != null) {
      t.printStackTrace(System.err);
    }
    streams.close(CLOSE_TIMEOUT);
    System.exit(1);
  }
}
