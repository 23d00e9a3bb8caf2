package sluice.bench.kstreams;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes a drain topic's records with a Kafka producer at its defaults (batch.size 16 KB,
 * linger.ms, acks and idempotence as shipped), so the benchmark's inputs can also be the record
 * batches an ordinary Java application writes rather than the runner's own 8,000-record batches.
 *
 * <p>The runner generates the records (bench/harness/workloads.ts is the one definition of the
 * data) and pipes them in, one per line: {@code <partition> TAB <timestamp ms> TAB <JSON value>}.
 * Key null. Prints {@code PRODUCED <n>} on stdout once every record is acknowledged.
 *
 * <pre>InputProducer --bootstrap host:port --topic name</pre>
 */
public final class InputProducer {
  private InputProducer() {}

  public static void main(String[] argv) throws IOException {
    if (argv.length != 4 || !"--bootstrap".equals(argv[0]) || !"--topic".equals(argv[2])) {
      System.err.println("usage: InputProducer --bootstrap host:port --topic name < records");
      System.exit(2);
    }
    String topic = argv[3];
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, argv[1]);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    AtomicReference<Exception> failed = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], String> producer = new KafkaProducer<>(p);
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20)) {
      String line;
      while ((line = in.readLine()) != null) {
        int a = line.indexOf('\t');
        int b = line.indexOf('\t', a + 1);
        if (a < 0 || b < 0) {
          throw new IllegalArgumentException("expected partition TAB timestamp TAB value: " + line);
        }
        int partition = Integer.parseInt(line, 0, a, 10);
        long timestamp = Long.parseLong(line, a + 1, b, 10);
        producer.send(
            new ProducerRecord<>(topic, partition, timestamp, null, line.substring(b + 1)),
            (meta, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
            });
        sent++;
        if (failed.get() != null) {
          break;
        }
      }
      producer.flush();
    }
    if (failed.get() != null) {
      System.err.println("InputProducer: a send failed: " + failed.get());
      System.exit(1);
    }
    System.out.println("PRODUCED " + sent);
  }
}
