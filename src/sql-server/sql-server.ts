import { randomInt } from "node:crypto";
import * as net from "node:net";
import { DEFAULT_SQL_USER, sqlServerOptionsSchema, sqlServerSettings, type SqlServerOptions, type SqlServerSettings } from "../config/sql-server-options.js";
import { validateOptions } from "../config/validate.js";
import { SqlServerError } from "../errors/errors.js";
import { AuthSecrets } from "./authentication.js";
import { Connection } from "./connection.js";
import { PgError, SQLSTATE } from "./error-response.js";
import type { SqlEngine } from "./sql-engine.js";

/**
 * A Postgres wire-protocol server over a session's memory-sink tables and temp views: psql, the
 * pg package and BI tools connect to it and run SELECT while streaming queries update the tables.
 * Read-only; one connection's trouble never reaches another, nor the session.
 */
export class SqlServer {
  private readonly connections = new Set<Connection>();
  private nextProcessId = 1;
  private closing: Promise<void> | null = null;
  private readonly closeListeners: (() => void)[] = [];

  private constructor(
    private readonly server: net.Server,
    private readonly settings: SqlServerSettings,
    private readonly engine: SqlEngine,
    private readonly secrets: AuthSecrets,
  ) {}

  /** @internal Starts listening; `session.serveSql()` is the public way in. */
  static async start(engine: SqlEngine, options: SqlServerOptions = {}): Promise<SqlServer> {
    const settings = sqlServerSettings(validateOptions(sqlServerOptionsSchema, options, "serveSql"));
    const secrets = await AuthSecrets.create(settings);
    const server = net.createServer();
    const sqlServer = new SqlServer(server, settings, engine, secrets);
    server.on("connection", (socket) => sqlServer.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) => reject(listenError(e, settings)));
      server.listen(settings.port, settings.host, () => resolve());
    });
    // Errors after listening (EMFILE on accept) must not crash the process; each socket has its own handler.
    server.on("error", () => {});
    return sqlServer;
  }

  /** The port listened on (the one picked when the option was 0). */
  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  get host(): string {
    return this.settings.host;
  }

  /** A connection URL for psql and the pg package, without a password: `postgresql://sluice@127.0.0.1:5432/sluice`. */
  get url(): string {
    const user = this.settings.users.keys().next().value ?? DEFAULT_SQL_USER;
    const host = net.isIPv6(this.host) ? `[${this.host}]` : this.host;
    return `postgresql://${encodeURIComponent(user)}@${host}:${this.port}/sluice`;
  }

  /** Connections open now. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Stops listening and ends every connection (FATAL 57P01, as a Postgres server shutting down). */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const c of [...this.connections]) c.fatal(new PgError(SQLSTATE.adminShutdown, "terminating connection due to administrator command", { severity: "FATAL" }));
      for (const listener of this.closeListeners) listener();
    });
    return this.closing;
  }

  /** @internal Calls `listener` once the server closes (the session forgets it). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  private accept(socket: net.Socket): void {
    const processId = this.nextProcessId++;
    const connection = new Connection(
      socket,
      {
        engine: this.engine,
        secrets: this.secrets,
        overLimit: this.connections.size >= this.settings.maxConnections,
        cancel: (pid, key) => {
          for (const c of this.connections) {
            if (c.processId === pid && c.secretKey === key) c.cancel(new PgError(SQLSTATE.queryCanceled, "canceling statement due to user request"));
          }
        },
        closed: (c) => this.connections.delete(c),
      },
      processId,
      randomInt(0x7fffffff),
    );
    this.connections.add(connection);
    if (this.closing) connection.fatal(new PgError(SQLSTATE.adminShutdown, "the database system is shutting down", { severity: "FATAL" }));
  }
}

function listenError(e: NodeJS.ErrnoException, settings: SqlServerSettings): Error {
  const where = `${settings.host}:${settings.port}`;
  if (e.code === "EADDRINUSE") {
    return new SqlServerError(`serveSql: port ${settings.port} on ${settings.host} is already in use (by a Postgres server?); choose another with { port: ... }, or { port: 0 } for any free port`, { cause: e });
  }
  if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND" || e.code === "EAI_AGAIN") {
    return new SqlServerError(`serveSql: cannot listen on host "${settings.host}": no such address on this machine; use an address it has, e.g. { host: "127.0.0.1" } or { host: "0.0.0.0" } for all`, { cause: e });
  }
  if (e.code === "EACCES") {
    return new SqlServerError(`serveSql: not allowed to listen on ${where} (ports below 1024 need privileges); choose another with { port: ... }`, { cause: e });
  }
  return new SqlServerError(`serveSql: cannot listen on ${where}: ${e.message}`, { cause: e });
}
