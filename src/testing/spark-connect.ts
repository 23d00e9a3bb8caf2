// Helpers for tests against a real Spark Connect server. Such tests are named `*.remote.test.ts`: the `remote`
// vitest project starts the server for them (src/testing/spark-connect-global-setup.ts) and provides its URL.
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** sc://host:port of the Spark Connect server the `remote` project's global setup started or was pointed at. */
    sparkRemote: string;
  }
}

/**
 * The Spark Connect server's URL (`sc://host:port`, perhaps with `/;key=value` parameters): `SPARK_REMOTE` when
 * set, else the one the `remote` project's global setup provides. Pass it on explicitly to child processes.
 */
export function sparkRemote(): string {
  const fromEnv = process.env.SPARK_REMOTE?.trim();
  if (fromEnv) return fromEnv;
  const provided = inject("sparkRemote");
  if (!provided) {
    throw new Error(
      "no Spark Connect server for this test: name the file *.remote.test.ts (the remote project starts one) " +
        "or set SPARK_REMOTE",
    );
  }
  return provided;
}

/**
 * The plaintext gRPC address (`http://host:port`) of `sparkRemote()`, for tests that talk to the server with a raw
 * client rather than through a Session. Its parameters (token, user_id, ...) are not applied here.
 */
export function sparkRemoteHttpUrl(): string {
  const remote = sparkRemote();
  const match = /^sc:\/\/(\[[^\]]+\]|[^:/;]+)(?::(\d+))?/.exec(remote);
  if (!match) throw new Error(`not a Spark Connect URL (sc://host:port): ${remote}`);
  return `http://${match[1]}:${match[2] ?? "15002"}`;
}
