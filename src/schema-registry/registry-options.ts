import { inspect } from "node:util";
import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";

/**
 * How Sluice reaches a schema registry: Confluent's client option names where Confluent has one
 * (`schema.registry.url`, `basic.auth.*`, `bearer.auth.*`), Sluice's own for what its client does its way
 * (`headers`, `requestTimeoutMs`, `maxRetries`, `retryBackoffMs`).
 */
export interface SchemaRegistryOptions {
  /** The registry's URL; several, separated by commas, are tried in turn when one cannot be reached. */
  "schema.registry.url": string;
  /**
   * Where the basic-auth credentials come from: `USER_INFO` (basic.auth.user.info) or `URL` (the
   * user info of schema.registry.url, `https://user:password@host`). Unset: USER_INFO when
   * basic.auth.user.info is set, else URL.
   */
  "basic.auth.credentials.source"?: string;
  /** `user:password`; for Confluent Cloud, the registry API key and secret. */
  "basic.auth.user.info"?: string;
  /** `STATIC_TOKEN` (bearer.auth.token), the only source Sluice supports; unset, it is implied by the token. */
  "bearer.auth.credentials.source"?: string;
  "bearer.auth.token"?: string;
  /** Confluent Cloud with bearer tokens: the registry's logical cluster id (lsrc-...), sent as target-sr-cluster. */
  "bearer.auth.logical.cluster"?: string;
  /** Confluent Cloud with bearer tokens: the identity pool id, sent as Confluent-Identity-Pool-Id. */
  "bearer.auth.identity.pool.id"?: string;
  /** Extra HTTP headers for every request (their values are treated as secrets, as API keys often are). */
  headers?: Readonly<Record<string, string>>;
  /** How long one request may take, its answer's body included (default 30000). */
  requestTimeoutMs?: number | string;
  /** Retries of a request that did not reach the registry, timed out, or got a 5xx, 408 or 429 answer (default 3). */
  maxRetries?: number | string;
  /** Wait between two attempts of a request (default 1000). */
  retryBackoffMs?: number | string;
}

/** How requests authenticate: the Authorization header and, for messages, who it names. */
export type RegistryAuth =
  | { readonly kind: "none" }
  | { readonly kind: "basic"; readonly user: string; readonly from: "basic.auth.user.info" | "schema.registry.url"; readonly header: string }
  | { readonly kind: "bearer"; readonly header: string };

export interface ResolvedRegistryOptions {
  /** Base URLs without credentials or trailing slash: what requests go to, and what messages show. */
  readonly urls: readonly string[];
  readonly auth: RegistryAuth;
  /** Headers sent with every request besides Authorization, Accept and Content-Type. */
  readonly headers: Readonly<Record<string, string>>;
  readonly requestTimeoutMs: number;
  readonly maxRetries: number;
  readonly retryBackoffMs: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Confluent's client defaults: max.retries 3, retries.wait.ms 1000. */
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BACKOFF_MS = 1000;

/**
 * A secret option's value on its way through validation. `validateOptions` repeats a wrong value in its
 * message, as JSON: this wrapper's JSON (and its inspect and string forms) is the value with its secret
 * parts hidden, so that no message, log line or test failure shows them.
 */
class Secret {
  constructor(
    readonly value: unknown,
    private readonly shown: unknown,
  ) {}
  toJSON(): unknown {
    return this.shown;
  }
  toString(): string {
    return JSON.stringify(this.shown);
  }
  [inspect.custom](): string {
    return this.toString();
  }
}

const HIDDEN = "[hidden]";

/** A URL as messages may show it: any password in it hidden. */
export function withoutPassword(url: string): string {
  return url.replace(/\/\/([^/?#@:]*):[^/?#@]*@/g, `//$1:${HIDDEN}@`);
}

function hideSecrets(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  const hide = (key: string, shown: (v: unknown) => unknown) => {
    if (out[key] !== undefined) out[key] = new Secret(out[key], shown(out[key]));
  };
  hide("schema.registry.url", (v) => (typeof v === "string" ? withoutPassword(v) : v));
  hide("basic.auth.user.info", () => HIDDEN);
  hide("bearer.auth.token", () => HIDDEN);
  hide("headers", (v) => (v !== null && typeof v === "object" ? Object.fromEntries(Object.keys(v).map((k) => [k, HIDDEN])) : HIDDEN));
  // An unknown option is refused by its name; its value may be a secret under a misspelt name.
  for (const key of Object.keys(out)) if (!(key in registryOptionsSchema.shape)) hide(key, () => HIDDEN);
  return out;
}

/** A schema for a secret option: takes the Secret that `hideSecrets` made, checks its value with `inner`. */
const secret = <T extends z.ZodType>(inner: T) =>
  z
    .custom<Secret>((v) => v instanceof Secret)
    .transform((s) => s.value)
    .pipe(inner);

const text = (option: string) => z.string({ error: `${option} must be text` }).trim().min(1, `${option} must not be empty`);

const wholeMs = (option: string, min: number) =>
  z.coerce
    .number({ error: `${option} must be a number of milliseconds` })
    .int(`${option} must be a whole number of milliseconds`)
    .min(min, `${option} must be at least ${min}`);

const upperEnum = <T extends readonly [string, ...string[]]>(option: string, values: T, extra?: (v: string) => string | undefined) =>
  z
    .string({ error: `${option} must be text: ${values.join(" or ")}` })
    .transform((s, ctx) => {
      const v = s.trim().toUpperCase();
      const refused = extra?.(v);
      if (refused !== undefined || !(values as readonly string[]).includes(v)) {
        ctx.addIssue({ code: "custom", message: refused ?? `${option} must be ${values.join(" or ")}` });
        return z.NEVER;
      }
      return v as T[number];
    });

interface ParsedUrls {
  readonly urls: string[];
  /** The user info of the URLs, decoded; the same for all of them. */
  readonly userInfo: string | undefined;
}

const URL_OPTION = "schema.registry.url";

const urlList = z
  .string({ error: `${URL_OPTION} must be text: the registry's URL, or several separated by commas` })
  .transform((list, ctx): ParsedUrls => {
    const urls: string[] = [];
    const userInfos = new Set<string | undefined>();
    for (const part of list.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
      let url: URL;
      try {
        url = new URL(part);
      } catch {
        ctx.addIssue({ code: "custom", message: `"${withoutPassword(part)}" is not a URL, such as http://127.0.0.1:8081` });
        continue;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        ctx.addIssue({ code: "custom", message: `"${withoutPassword(part)}" is not an http:// or https:// URL` });
        continue;
      }
      userInfos.add(url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined);
      // fetch refuses URLs with credentials: they travel in the Authorization header instead.
      url.username = "";
      url.password = "";
      urls.push(url.href.replace(/\/+$/, ""));
    }
    if (urls.length === 0 && ctx.issues.length === 0) ctx.addIssue({ code: "custom", message: `${URL_OPTION} names no URL` });
    if (userInfos.size > 1) ctx.addIssue({ code: "custom", message: `the URLs in ${URL_OPTION} carry different credentials: give them all the same, or use basic.auth.user.info` });
    return { urls, userInfo: [...userInfos][0] };
  });

const OPTION_NAMES =
  "schema.registry.url, basic.auth.credentials.source, basic.auth.user.info, bearer.auth.credentials.source, bearer.auth.token, " +
  "bearer.auth.logical.cluster, bearer.auth.identity.pool.id, headers, requestTimeoutMs, maxRetries, retryBackoffMs";

const registryOptionsSchema = z.strictObject(
  {
    [URL_OPTION]: secret(urlList),
    "basic.auth.credentials.source": upperEnum("basic.auth.credentials.source", ["URL", "USER_INFO"] as const, (v) =>
      v === "SASL_INHERIT"
        ? "basic.auth.credentials.source SASL_INHERIT (the Kafka client's SASL credentials) is not supported: set it to USER_INFO and the credentials in basic.auth.user.info"
        : undefined,
    ).optional(),
    "basic.auth.user.info": secret(
      z
        .string({ error: 'basic.auth.user.info must be text: "user:password"' })
        .refine((v) => /^[^:]+:/.test(v), { message: 'basic.auth.user.info must be "user:password" (for Confluent Cloud, the registry API key and secret)' }),
    ).optional(),
    "bearer.auth.credentials.source": upperEnum("bearer.auth.credentials.source", ["STATIC_TOKEN"] as const, (v) =>
      v === "STATIC_TOKEN" ? undefined : `bearer.auth.credentials.source ${v} is not supported: Sluice sends the token of bearer.auth.token (STATIC_TOKEN)`,
    ).optional(),
    "bearer.auth.token": secret(text("bearer.auth.token")).optional(),
    "bearer.auth.logical.cluster": text("bearer.auth.logical.cluster").optional(),
    "bearer.auth.identity.pool.id": text("bearer.auth.identity.pool.id").optional(),
    headers: secret(z.record(z.string(), z.string({ error: "headers: every header value must be text" }), { error: "headers must be an object of header names and values" })).optional(),
    requestTimeoutMs: wholeMs("requestTimeoutMs", 1).default(DEFAULT_REQUEST_TIMEOUT_MS),
    maxRetries: z.coerce
      .number({ error: "maxRetries must be a number" })
      .int("maxRetries must be a whole number")
      .min(0, "maxRetries must be 0 (one attempt) or more")
      .default(DEFAULT_MAX_RETRIES),
    retryBackoffMs: wholeMs("retryBackoffMs", 0).default(DEFAULT_RETRY_BACKOFF_MS),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown option(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}; the schema registry options are ${OPTION_NAMES}` : undefined) },
);

/** Headers the client sets itself. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "content-length", "host"]);

/** Validates a schema registry client's options and works out its URLs, credentials and headers. */
export function resolveSchemaRegistryOptions(input: SchemaRegistryOptions, where = "schema registry options"): ResolvedRegistryOptions {
  if (input === null || typeof input !== "object" || (input as Partial<SchemaRegistryOptions>)[URL_OPTION] === undefined) {
    throw new OptionError(`${where}: ${URL_OPTION} is required: the registry's URL, such as http://127.0.0.1:8081 (several separated by commas)`);
  }
  const o = validateOptions(registryOptionsSchema, hideSecrets(input as unknown as Record<string, unknown>), where);
  const fail = (message: string): never => {
    throw new OptionError(`${where}: ${message}`);
  };
  const { urls, userInfo: urlUserInfo } = o[URL_OPTION];
  const userInfo = o["basic.auth.user.info"];
  const token = o["bearer.auth.token"];
  const source = o["basic.auth.credentials.source"] ?? (userInfo !== undefined ? "USER_INFO" : "URL");
  if (source === "URL" && userInfo !== undefined) {
    fail("basic.auth.user.info is set but basic.auth.credentials.source is URL (the credentials of schema.registry.url): set it to USER_INFO, or leave it unset");
  }
  if (source === "USER_INFO" && userInfo === undefined) fail('basic.auth.credentials.source USER_INFO needs basic.auth.user.info: "user:password"');
  if (source === "USER_INFO" && urlUserInfo !== undefined) {
    fail("schema.registry.url carries credentials and basic.auth.user.info is set: keep one of them");
  }
  const basic = source === "USER_INFO" ? userInfo : urlUserInfo;
  if (o["bearer.auth.credentials.source"] !== undefined && token === undefined) fail("bearer.auth.credentials.source STATIC_TOKEN needs bearer.auth.token");
  if (basic !== undefined && token !== undefined) fail("both basic authentication and bearer.auth.token are set: a registry takes one of them");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(o.headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) fail(`headers: ${name} is set by the client itself`);
    if (lower === "authorization" && (basic !== undefined || token !== undefined)) {
      fail("headers: Authorization is set, and so are credentials (basic.auth.* or bearer.auth.token): keep one of them");
    }
    headers[name] = value;
  }
  const cluster = o["bearer.auth.logical.cluster"];
  const pool = o["bearer.auth.identity.pool.id"];
  if ((cluster !== undefined || pool !== undefined) && token === undefined) {
    fail("bearer.auth.logical.cluster and bearer.auth.identity.pool.id go with bearer.auth.token, which is not set");
  }
  // Confluent Cloud routes a bearer token's request by these two headers, as Confluent's clients send them.
  if (cluster !== undefined) headers["target-sr-cluster"] = cluster;
  if (pool !== undefined) headers["Confluent-Identity-Pool-Id"] = pool;
  const auth: RegistryAuth =
    basic !== undefined
      ? {
          kind: "basic",
          user: basic.slice(0, basic.indexOf(":")),
          from: source === "USER_INFO" ? "basic.auth.user.info" : URL_OPTION,
          header: `Basic ${Buffer.from(basic, "utf8").toString("base64")}`,
        }
      : token !== undefined
        ? { kind: "bearer", header: `Bearer ${token}` }
        : { kind: "none" };
  return { urls, auth, headers, requestTimeoutMs: o.requestTimeoutMs, maxRetries: o.maxRetries, retryBackoffMs: o.retryBackoffMs };
}

/** Sluice's own client options, as a source's or sink's options name them: prefixed, since `maxRetries` alone would be ambiguous there. */
const PREFIXED_OWN_OPTIONS: Readonly<Record<string, keyof SchemaRegistryOptions>> = {
  "schema.registry.requestTimeoutMs": "requestTimeoutMs",
  "schema.registry.maxRetries": "maxRetries",
  "schema.registry.retryBackoffMs": "retryBackoffMs",
};

/**
 * Whether a source's, sink's or function's option is a schema registry option: `schema.registry.*`,
 * `basic.auth.*` or `bearer.auth.*`. `registryOptionsIn` takes these and leaves every other option
 * to its owner.
 */
export function isRegistryOption(key: string): boolean {
  return key.startsWith("schema.registry.") || key.startsWith("basic.auth.") || key.startsWith("bearer.auth.");
}

/**
 * The schema registry options among the options of a source, a sink or a function (`schema.registry.url`,
 * `basic.auth.*`, `bearer.auth.*`, and `schema.registry.requestTimeoutMs` / `maxRetries` /
 * `retryBackoffMs`); undefined when `schema.registry.url` is not among them. Other options are left for
 * their owner to check, except an unknown `schema.registry.*` one, which is refused here.
 */
export function registryOptionsIn(options: Readonly<Record<string, unknown>>, where: string): SchemaRegistryOptions | undefined {
  const picked: Record<string, unknown> = {};
  const given: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || !isRegistryOption(key)) continue;
    if (key in PREFIXED_OWN_OPTIONS) picked[PREFIXED_OWN_OPTIONS[key]!] = value;
    else if (key === URL_OPTION || !key.startsWith("schema.registry.")) picked[key] = value;
    else {
      throw new OptionError(`${where}: unknown option "${key}"; the schema registry options are ${URL_OPTION}, basic.auth.*, bearer.auth.* and ${Object.keys(PREFIXED_OWN_OPTIONS).join(", ")}`);
    }
    given.push(key);
  }
  if (picked[URL_OPTION] === undefined) {
    const stray = given[0];
    if (stray !== undefined) throw new OptionError(`${where}: ${stray} is set but ${URL_OPTION} is not: set the registry's URL too, or drop ${stray}`);
    return undefined;
  }
  // Checked now, so that a wrong option fails where it was given rather than in a worker, under the name it was given by.
  try {
    resolveSchemaRegistryOptions(picked as unknown as SchemaRegistryOptions, where);
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    let message = e.message;
    for (const [asGiven, own] of Object.entries(PREFIXED_OWN_OPTIONS)) message = message.replaceAll(`option "${own}":`, `option "${asGiven}":`);
    throw new OptionError(message, { cause: e });
  }
  return picked as unknown as SchemaRegistryOptions;
}
