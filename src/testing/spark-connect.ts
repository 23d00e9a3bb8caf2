// Helpers for tests against a real Spark Connect server. Such tests are named `*.remote.test.ts`: the `remote`
// vitest project starts the server for them (src/testing/spark-connect-global-setup.ts) and provides its URL.
import { inject } from "vitest";
import { Session } from "../api/session.js";
import type { RemoteOption } from "../config/options.js";

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
 * A session on the test server: keep-alive every 5 s, since the test server closes sessions idle for 30 s
 * (spark-connect-global-setup.ts).
 */
export function remoteSession(url: string = sparkRemote(), options: Omit<Exclude<RemoteOption, string>, "url"> = {}): Session {
  return new Session({ workers: 0, remote: { url, keepAliveInterval: "5 seconds", ...options } });
}

/** Runs `fn` with a remote session, stopped (its server-side session released) afterwards. */
export async function withRemoteSession<T>(fn: (session: Session) => Promise<T>, url?: string): Promise<T> {
  const session = remoteSession(url);
  try {
    return await fn(session);
  } finally {
    await session.stop();
  }
}
