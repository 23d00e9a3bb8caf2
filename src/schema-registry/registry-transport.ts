import { setTimeout as sleep } from "node:timers/promises";
import { failedAfterRetries, unreachable, type RegistryAnswer, type RegistryCall } from "./registry-errors.js";
import type { ResolvedRegistryOptions } from "./registry-options.js";

/**
 * Sends requests to a schema registry over Node's fetch: every attempt bounded by requestTimeoutMs (its
 * answer's body included), and at most maxRetries more attempts, retryBackoffMs apart, when one gets no
 * answer or an answer worth retrying. Attempts go to the URLs of schema.registry.url in turn, starting
 * with the one that answered last. Retrying is safe for every request the client makes: reads, and
 * writes the registry makes idempotent (registering a schema it has returns its id again).
 */

/** Confluent's REST media type; Apicurio answers application/json, which the Accept header allows too. */
const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
const ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";

/**
 * Answers another attempt may fix: the registry failing (5xx: a leader election, a store timeout), a
 * request timeout (408) and rate limiting (429, as Confluent Cloud answers); the rest are final.
 */
function worthRetrying(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export class RegistryTransport {
  /** The index in `urls` of the URL that answered last: the next request goes there first. */
  private preferred = 0;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(readonly options: ResolvedRegistryOptions) {
    const { auth } = options;
    this.headers = { ...options.headers, Accept: ACCEPT, ...(auth.kind === "none" ? {} : { Authorization: auth.header }) };
  }

  /** The registry's answer (any status but a retried one), or a SchemaRegistryError once retries are spent. */
  async send(call: RegistryCall): Promise<RegistryAnswer> {
    const { urls, maxRetries, retryBackoffMs } = this.options;
    const attempts = maxRetries + 1;
    let lastAnswer: RegistryAnswer | undefined;
    let lastFailure: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(retryBackoffMs);
      const index = (this.preferred + attempt) % urls.length;
      try {
        const answer = await this.attempt(urls[index]!, call);
        this.preferred = index;
        if (!worthRetrying(answer.status)) return answer;
        lastAnswer = answer;
        lastFailure = undefined;
      } catch (e) {
        lastFailure = e;
      }
    }
    if (lastFailure === undefined && lastAnswer !== undefined) throw failedAfterRetries(lastAnswer, call, attempts, retryBackoffMs);
    throw unreachable(urls, call, attempts, retryBackoffMs, this.describeFailure(lastFailure), lastFailure);
  }

  private async attempt(url: string, call: RegistryCall): Promise<RegistryAnswer> {
    // A signal rather than a timer raced against the work: it cancels the request, and the reading of the body.
    const signal = AbortSignal.timeout(this.options.requestTimeoutMs);
    const response = await fetch(url + call.path, {
      method: call.method,
      headers: call.body === undefined ? this.headers : { ...this.headers, "Content-Type": CONTENT_TYPE },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
    });
    const text = await response.text();
    return { url, status: response.status, json: parseJson(text), text };
  }

  /** Why an attempt got no answer, in a few words: "ECONNREFUSED", "no answer within 2000 ms". */
  private describeFailure(e: unknown): string {
    const error = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string; errors?: { code?: string }[] } };
    if (error?.name === "TimeoutError") return `no answer within ${this.options.requestTimeoutMs} ms (requestTimeoutMs)`;
    // fetch fails with "fetch failed" and the socket's error as its cause; trying several addresses of one
    // host makes that an AggregateError of one error per address. A system error's code (ECONNREFUSED,
    // ENOTFOUND, ECONNRESET) says it all; undici's own codes (UND_ERR_SOCKET) say less than their messages.
    const cause = error?.cause;
    const code = cause?.code ?? cause?.errors?.[0]?.code;
    if (code?.startsWith("E")) return code;
    return cause?.message ?? error?.message ?? String(e);
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
