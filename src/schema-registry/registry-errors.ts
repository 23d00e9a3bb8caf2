import { SchemaRegistryError } from "../errors/errors.js";
import type { RegistryAuth } from "./registry-options.js";

/**
 * The messages of a schema registry client's errors. Each names the registry's URL (its credentials
 * never: they travel in a header, not in the URL), the request, the HTTP status and the registry's own
 * `error_code` and message, and says what the answer means for what was asked.
 */

/** One request to a registry. */
export interface RegistryCall {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** The path under the registry's URL, query included, its parts already encoded: "/schemas/ids/5". */
  readonly path: string;
  readonly body?: unknown;
}

/** A registry's answer: its status and body, as read. */
export interface RegistryAnswer {
  /** The URL that answered (one of schema.registry.url's). */
  readonly url: string;
  readonly status: number;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly json: unknown;
  /** The body's text, for messages when it is not what was expected. */
  readonly text: string;
}

/** What a request asked for: says what a 404, 409 or 422 answer means. */
export type Asked =
  | { readonly kind: "schema"; readonly id: number }
  | { readonly kind: "version"; readonly subject: string; readonly version: number | "latest" }
  | { readonly kind: "register"; readonly subject: string }
  | { readonly kind: "lookup"; readonly subject: string }
  | { readonly kind: "compatibility"; readonly subject: string; readonly version: number | "latest" }
  | { readonly kind: "config"; readonly subject: string };

export const describeCall = (call: RegistryCall): string => `${call.method} ${call.path}`;

const registryAt = (url: string) => `the schema registry at ${url}`;

/** Confluent's error body: `{ "error_code": 40403, "message": "..." }`. */
function errorBody(answer: RegistryAnswer): { code: number | undefined; message: string | undefined } {
  const json = answer.json as { error_code?: unknown; message?: unknown } | undefined;
  if (json === null || typeof json !== "object") return { code: undefined, message: undefined };
  return {
    code: typeof json.error_code === "number" ? json.error_code : undefined,
    message: typeof json.message === "string" ? json.message : undefined,
  };
}

/** The longest piece of an unexpected body a message repeats (a proxy's HTML error page, say). */
const EXCERPT_CHARS = 200;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}...` : flat;
}

/** "HTTP 404 (error 40403: No content with id ...)": the status and the registry's own words. */
export function answerDetail(answer: RegistryAnswer): string {
  const { code, message } = errorBody(answer);
  if (code !== undefined || message !== undefined) return `HTTP ${answer.status} (error ${code ?? "?"}: ${message ?? ""})`;
  const body = excerpt(answer.text);
  return body === "" ? `HTTP ${answer.status}` : `HTTP ${answer.status} (${body})`;
}

function attemptsPhrase(attempts: number, backoffMs: number): string {
  return attempts > 1 ? `after ${attempts} attempt(s) ${backoffMs} ms apart` : `after ${attempts} attempt(s)`;
}

function registryError(message: string, url: string, call: RegistryCall, answer: RegistryAnswer | undefined, cause?: unknown): SchemaRegistryError {
  return new SchemaRegistryError(message, url, describeCall(call), answer?.status, answer && errorBody(answer).code, cause === undefined ? undefined : { cause });
}

/** No attempt got an answer: every one failed to connect, was cut off or timed out. */
export function unreachable(urls: readonly string[], call: RegistryCall, attempts: number, backoffMs: number, why: string, cause: unknown): SchemaRegistryError {
  const url = urls.join(", ");
  return registryError(
    `cannot reach ${registryAt(url)} ${attemptsPhrase(attempts, backoffMs)}: ${why} (${describeCall(call)}). ` +
      "Check schema.registry.url; maxRetries and retryBackoffMs set how long Sluice waits for the registry",
    url,
    call,
    undefined,
    cause,
  );
}

/** The registry answered, but every attempt with a status worth retrying (5xx, 408, 429). */
export function failedAfterRetries(answer: RegistryAnswer, call: RegistryCall, attempts: number, backoffMs: number): SchemaRegistryError {
  return registryError(
    `${registryAt(answer.url)} failed ${describeCall(call)} ${attemptsPhrase(attempts, backoffMs)}: ${answerDetail(answer)}`,
    answer.url,
    call,
    answer,
  );
}

/** A 2xx answer whose body is not the one the request gets. */
export function unreadableAnswer(answer: RegistryAnswer, call: RegistryCall, why: string): SchemaRegistryError {
  const body = excerpt(answer.text);
  return registryError(
    `${registryAt(answer.url)} answered ${describeCall(call)} with HTTP ${answer.status} and a body that is not a schema registry's answer (${why})${body === "" ? "" : `: ${body}`}`,
    answer.url,
    call,
    answer,
  );
}

/** A 4xx answer (one not worth retrying). */
export function refused(answer: RegistryAnswer, call: RegistryCall, asked: Asked, auth: RegistryAuth): SchemaRegistryError {
  const at = registryAt(answer.url);
  const detail = `${describeCall(call)} answered ${answerDetail(answer)}`;
  let message: string;
  if (answer.status === 401) message = credentialsRefused(at, detail, auth);
  else if (answer.status === 403) {
    const who = auth.kind === "basic" ? `for "${auth.user}"` : auth.kind === "bearer" ? "for this bearer token" : "without credentials";
    message = `${at} does not allow ${describeCall(call)} ${who}: ${answerDetail(answer)}. The credentials were accepted, but lack the permission for this request`;
  } else {
    const meaning = meaningOf(asked, answer.status, errorBody(answer).code, at);
    message = meaning === undefined ? `${at} refused ${describeCall(call)}: ${answerDetail(answer)}` : `${meaning}: ${detail}`;
  }
  return registryError(message, answer.url, call, answer);
}

function credentialsRefused(at: string, detail: string, auth: RegistryAuth): string {
  switch (auth.kind) {
    case "none":
      return `${at} needs credentials: ${detail}. Set basic.auth.user.info ("user:password") or bearer.auth.token`;
    case "basic":
      return `${at} refused basic authentication as "${auth.user}": ${detail}. Check the user and password in ${auth.from}`;
    case "bearer":
      return `${at} refused the bearer token: ${detail}. Check bearer.auth.token (it may have expired)`;
    default: {
      const unknown: never = auth;
      return String(unknown);
    }
  }
}

/** Confluent's error codes: subject, version and schema not found; subject soft-deleted; invalid schema, version, level. */
const SUBJECT_NOT_FOUND = 40401;
const VERSION_NOT_FOUND = 40402;
const SCHEMA_NOT_FOUND = 40403;
const SUBJECT_SOFT_DELETED = 40404;
const INCOMPATIBLE_SCHEMA = 409;
const INVALID_SCHEMA = 42201;
const INVALID_COMPATIBILITY_LEVEL = 42203;

/** What a refusal means for what was asked, or undefined when its code says nothing more than its status. */
function meaningOf(asked: Asked, status: number, code: number | undefined, at: string): string | undefined {
  if (asked.kind === "schema") return status === 404 ? `schema id ${asked.id} is not in ${at}` : undefined;
  const subject = JSON.stringify(asked.subject);
  if (code === SUBJECT_NOT_FOUND) return `subject ${subject} is not in ${at}`;
  if (code === SUBJECT_SOFT_DELETED) return `subject ${subject} was deleted from ${at}`;
  if (code === INVALID_SCHEMA) return `${at} refused the schema for subject ${subject} as invalid`;
  switch (asked.kind) {
    case "version":
    case "compatibility":
      return code === VERSION_NOT_FOUND ? `subject ${subject} has no version ${asked.version} in ${at}` : undefined;
    case "register":
      return code === INCOMPATIBLE_SCHEMA || status === 409
        ? `${at} refused to register the schema under subject ${subject}: it is not compatible with the subject's earlier versions under its compatibility level`
        : undefined;
    case "lookup":
      return code === SCHEMA_NOT_FOUND ? `the schema is not registered under subject ${subject} in ${at}` : undefined;
    case "config":
      return code === INVALID_COMPATIBILITY_LEVEL ? `${at} does not take that compatibility level for subject ${subject}` : undefined;
    default: {
      const unknown: never = asked;
      return String(unknown);
    }
  }
}
