// Asks the Kafka broker at argv[2] (host:port) for its cluster metadata, as a client would.
// Exit 0 and one line about the cluster when it answers; 1 when it does not (yet); 2 when this probe cannot run.
// Used by scripts/kafka.sh to wait for a starting broker.
let kafkajs;
try {
  kafkajs = (await import("kafkajs")).default;
} catch (error) {
  console.log(`kafkajs is not installed (run npm ci): ${error.message}`);
  process.exit(2);
}
const { Kafka, logLevel } = kafkajs;
const address = process.argv[2];
if (!address) {
  console.log("usage: probe.mjs host:port");
  process.exit(2);
}
const admin = new Kafka({
  clientId: "sluice-probe",
  brokers: [address],
  logLevel: logLevel.NOTHING,
  connectionTimeout: 1000,
  requestTimeout: 3000,
  retry: { retries: 0 },
}).admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  console.log(`cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s), controller ${cluster.controller}`);
  await admin.disconnect();
  process.exit(0);
} catch (error) {
  console.log(error.message);
  process.exit(1);
}
