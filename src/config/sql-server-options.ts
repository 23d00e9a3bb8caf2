import { isIP } from "node:net";
import { z } from "zod";
import { durationSchema } from "./duration.js";

/**
 * Options of `session.serveSql()`, the Postgres wire-protocol server over memory-sink tables and
 * temp views. Names follow Postgres's settings where one exists (authentication_timeout,
 * statement_timeout, max_connections).
 */

export const SQL_SERVER_AUTH = ["scram-sha-256", "password", "trust"] as const;
export type SqlServerAuth = (typeof SQL_SERVER_AUTH)[number];

/**
 * Postgres's own port: psql, the pg package and BI tools try it when no port is given, so a
 * session serving on it is found without configuration. A Postgres server already on it makes
 * serveSql() fail with a message naming the option; `port: 0` takes any free port.
 */
export const DEFAULT_SQL_PORT = 5432;
/** The user name when only a password is given (the database name in URLs, too). */
export const DEFAULT_SQL_USER = "sluice";

const duration = durationSchema;

export const sqlServerOptionsSchema = z
  .object({
    /** TCP port; 0 picks any free port (read it from `server.port`). */
    port: z.number().int("port must be a whole number").min(0, "port must be 0 (any free port) to 65535").max(65535, "port must be 0 (any free port) to 65535").default(DEFAULT_SQL_PORT),
    /** Address to listen on. Anything but loopback needs a password. */
    host: z.string().min(1, "host must be an address or host name, e.g. 127.0.0.1").default("127.0.0.1"),
    /** The one user's name, with `password` (default "sluice"). */
    user: z.string().min(1, "user must not be empty").optional(),
    /** The one user's password. */
    password: z.string().min(1, "password must not be empty").optional(),
    /** Several users: name -> password. */
    users: z.record(z.string().min(1, "a user name must not be empty"), z.string().min(1, "a password must not be empty")).optional(),
    /** How clients prove who they are: SCRAM-SHA-256 (the default with a password), a clear-text password, or none ("trust", loopback only). */
    auth: z.enum(SQL_SERVER_AUTH, { error: `auth must be one of ${SQL_SERVER_AUTH.join(", ")}` }).optional(),
    /** How long a client may take to start up and authenticate before it is disconnected (Postgres's authentication_timeout, 1 minute). */
    authenticationTimeout: duration("authenticationTimeout")
      .refine((ms) => ms > 0, "authenticationTimeout must be greater than 0")
      .default(60_000),
    /** Longest a statement may run before it is canceled with 57014; 0 (the default, as Postgres's statement_timeout) for no limit. A client may SET statement_timeout itself. */
    statementTimeout: duration("statementTimeout").default(0),
    /** Connections open at once at most (Postgres's max_connections); more are refused with 53300. */
    maxConnections: z.number().int("maxConnections must be a whole number").min(1, "maxConnections must be at least 1").default(100),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.users !== undefined && (o.user !== undefined || o.password !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["users"], message: "give either users (name -> password) or user and password, not both" });
    }
    if (o.auth === "trust" && (o.password !== undefined || o.users !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["auth"], message: 'auth "trust" asks for no password, but one is given: leave auth out (SCRAM-SHA-256 is used) or drop the password' });
    }
    const hasPassword = o.password !== undefined || (o.users !== undefined && Object.keys(o.users).length > 0);
    if ((o.auth === "scram-sha-256" || o.auth === "password") && !hasPassword) {
      ctx.addIssue({ code: "custom", path: ["password"], message: `auth "${o.auth}" needs a password: give password (and user) or users` });
    }
    if (!isLoopback(o.host) && !hasPassword) {
      ctx.addIssue({
        code: "custom",
        path: ["password"],
        message: `host "${o.host}" is reachable from other machines, so the server needs a password: give password (and user) or users; clients then authenticate with SCRAM-SHA-256. Only a loopback host (127.0.0.1, ::1, localhost) may serve without one`,
      });
    }
  });
export type SqlServerOptions = z.input<typeof sqlServerOptionsSchema>;

/** The options with defaults applied and the user list and authentication method settled. */
export interface SqlServerSettings {
  readonly port: number;
  readonly host: string;
  readonly auth: SqlServerAuth;
  /** name -> password; empty under "trust" without users (any user name is accepted). */
  readonly users: ReadonlyMap<string, string>;
  readonly authenticationTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly maxConnections: number;
}

export function sqlServerSettings(o: z.output<typeof sqlServerOptionsSchema>): SqlServerSettings {
  const users = new Map(Object.entries(o.users ?? (o.password === undefined ? {} : { [o.user ?? DEFAULT_SQL_USER]: o.password })));
  return {
    port: o.port,
    host: o.host,
    auth: o.auth ?? (users.size > 0 ? "scram-sha-256" : "trust"),
    users,
    authenticationTimeoutMs: o.authenticationTimeout,
    statementTimeoutMs: o.statementTimeout,
    maxConnections: o.maxConnections,
  };
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 (and IPv4-mapped 127.x) and "localhost". */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h) || h === "0:0:0:0:0:0:0:1";
  return false;
}
