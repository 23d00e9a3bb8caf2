import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import type { StateStoreProvider } from "../state/state-store.js";

/**
 * One state store provider per checkpoint location within a session, so a query stopped and
 * started again on the same checkpoint in this process continues from its committed state.
 */
export class StateStoreRegistry {
  private readonly providers = new Map<string, StateStoreProvider>();

  forCheckpoint(location: string): StateStoreProvider {
    let p = this.providers.get(location);
    if (!p) {
      p = new InMemoryStateStoreProvider();
      this.providers.set(location, p);
    }
    return p;
  }
}
