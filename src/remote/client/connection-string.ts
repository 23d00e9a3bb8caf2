import { OptionError } from "../../errors/errors.js";

/** Spark Connect's port when a connection string names none. */
export const DEFAULT_SPARK_CONNECT_PORT = 15002;

/** What an `sc://` connection string says, as Spark Connect's clients read it. */
export interface ConnectionSpec {
  readonly host: string;
  readonly port: number;
  /** TLS on the channel: `use_ssl=true`, or a token (a bearer token is never sent in clear, except to a loopback host). */
  readonly useSsl: boolean;
  /** Sent as `authorization: Bearer <token>` (the server's spark.connect.authenticate.token). */
  readonly token: string | null;
  /** The user the server's session belongs to (UserContext.user_id). */
  readonly userId: string;
  /** Names the client in the server's logs (client_type). */
  readonly userAgent: string;
  /** A session to join (a UUID); null: a new one. */
  readonly sessionId: string | null;
  /** Every other parameter, sent as gRPC metadata on each call, as Spark's clients do. */
  readonly headers: Readonly<Record<string, string>>;
  /** The string without its token, for messages. */
  readonly display: string;
}

const RESERVED = new Set(["token", "use_ssl", "user_id", "user_agent", "session_id"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

function fail(text: string, why: string): never {
  throw new OptionError(
    `remote: "${redact(text)}" is not a Spark Connect connection string: ${why}. ` +
      'The form is sc://host[:port]/;param=value;... with the parameters token, use_ssl, user_id, user_agent and session_id, e.g. "sc://spark.example.com:15002/;token=...;user_id=ana"',
  );
}

/** The text with a token's value hidden, so that messages and logs never show it. */
function redact(text: string): string {
  return text.replace(/(;token=)[^;]*/g, "$1***");
}

/**
 * Parses `sc://host[:port]/;k=v;...` (Spark Connect's client connection string): port 15002 by
 * default, an empty path, parameters separated by `;`, names case-sensitive and values URL-decoded.
 * `env` supplies the fallbacks Spark's clients read (SPARK_CONNECT_AUTHENTICATE_TOKEN, USER).
 */
export function parseConnectionString(text: string, env: NodeJS.ProcessEnv = process.env): ConnectionSpec {
  if (!text.startsWith("sc://")) fail(text, "it must start with sc://");
  const rest = text.slice("sc://".length);
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const tail = slash < 0 ? "" : rest.slice(slash + 1);
  if (tail !== "" && !tail.startsWith(";")) fail(text, "the path must be empty; parameters follow the host after /;");
  const { host, port } = hostAndPort(text, authority);

  const params = new Map<string, string>();
  for (const part of tail.split(";").filter((p) => p !== "")) {
    const eq = part.indexOf("=");
    if (eq <= 0) fail(text, `parameter "${part.replace(/=.*/, "=***")}" must be name=value`);
    const name = part.slice(0, eq);
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      fail(text, `the value of ${name} is not valid URL encoding`);
    }
    if (params.has(name)) fail(text, `parameter ${name} is given twice`);
    params.set(name, value);
  }

  const useSslText = params.get("use_ssl");
  if (useSslText !== undefined && useSslText !== "true" && useSslText !== "false") fail(text, `use_ssl must be true or false, not "${useSslText}"`);
  const token = params.get("token") ?? env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] ?? null;
  if (token === "") fail(text, "token is empty");
  const sessionId = params.get("session_id") ?? null;
  if (sessionId !== null && !UUID.test(sessionId)) fail(text, `session_id must be a UUID (the server refuses others), not "${sessionId}"`);
  // A token implies TLS, except towards the machine itself (as pyspark's client does for localhost).
  const useSsl = useSslText === undefined ? token !== null && !LOOPBACK.has(host) : useSslText === "true";

  const headers: Record<string, string> = {};
  for (const [name, value] of params) if (!RESERVED.has(name)) headers[name.toLowerCase()] = value;
  return {
    host,
    port,
    useSsl,
    token,
    userId: params.get("user_id") ?? env["USER"] ?? "sluice",
    userAgent: params.get("user_agent") ?? "sluice",
    sessionId,
    headers,
    display: redact(text),
  };
}

function hostAndPort(text: string, authority: string): { host: string; port: number } {
  if (authority === "") fail(text, "it names no host");
  // [v6 address]:port, or host:port, or host alone.
  const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d*))?$/.exec(authority);
  if (!m) fail(text, `"${authority}" is not host or host:port`);
  const host = m[1]!;
  if (m[2] === undefined) return { host, port: DEFAULT_SPARK_CONNECT_PORT };
  const port = Number(m[2]);
  if (m[2] === "" || !Number.isInteger(port) || port < 1 || port > 65535) fail(text, `the port must be 1 to 65535, not "${m[2]}"`);
  return { host, port };
}

/** The URL the gRPC transport dials: http:// or https:// to host:port. */
export function channelUrl(spec: ConnectionSpec): string {
  return `${spec.useSsl ? "https" : "http"}://${spec.host}:${spec.port}`;
}
