import { InternalError } from "../../errors/errors.js";
import type { KafkajsInternals } from "./kafkajs-internals.js";

export type { KafkaErrorCode, KafkajsInternals } from "./kafkajs-internals.js";

/**
 * kafkajs, loaded on first use: `import "sluice"` loads none of it, so programs (and workers)
 * that never touch Kafka do not pay for it. Every connection starts with `loadKafkajs()`; code
 * that runs only once a connection exists may use `loadedKafkajs()`.
 */

let loading: Promise<KafkajsInternals> | null = null;
let loaded: KafkajsInternals | null = null;

export function loadKafkajs(): Promise<KafkajsInternals> {
  loading ??= import("./kafkajs-internals.js").then((m) => (loaded = m.internals));
  return loading;
}

export function loadedKafkajs(): KafkajsInternals {
  if (!loaded) throw new InternalError("kafkajs is used before loadKafkajs() loaded it: a Kafka call must start from a connection");
  return loaded;
}
