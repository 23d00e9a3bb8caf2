import { SchemaRegistryClient } from "./registry-client.js";
import type { SchemaRegistryOptions } from "./registry-options.js";

/** Registries a process keeps clients for. */
const CAPACITY = 16;

const clients = new Map<string, SchemaRegistryClient>();

/**
 * The process's client for this registry (URLs and credentials): every task of a worker thread shares
 * it, so that its caches ask for each schema once however many batches name it.
 */
export function processRegistryClient(options: SchemaRegistryOptions): SchemaRegistryClient {
  const key = JSON.stringify(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1)));
  let client = clients.get(key);
  if (client === undefined) {
    client = new SchemaRegistryClient(options);
    clients.set(key, client);
    if (clients.size > CAPACITY) clients.delete(clients.keys().next().value!);
  }
  return client;
}
