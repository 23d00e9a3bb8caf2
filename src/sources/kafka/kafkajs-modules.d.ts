// kafkajs's private files that ./kafkajs-internals.ts imports (kafkajs ships no types for them).
declare module "kafkajs/src/cluster/index.js" {
  const Cluster: unknown;
  export default Cluster;
}
declare module "kafkajs/src/loggers/index.js" {
  const loggers: { createLogger: unknown; LEVELS: unknown };
  export default loggers;
}
declare module "kafkajs/src/protocol/error.js" {
  const protocolErrors: { errorCodes: unknown };
  export default protocolErrors;
}
declare module "kafkajs/src/protocol/requests/fetch/v11/request.js" {
  const fetchV11: unknown;
  export default fetchV11;
}
