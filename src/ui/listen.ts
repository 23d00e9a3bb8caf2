import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OptionError } from "../errors/errors.js";

/** Where a server of the session's listens, as its option asked. */
export interface ListenRequest {
  /** The session option that asked for the server ("ui", "metrics"), named in errors. */
  readonly option: string;
  readonly host: string;
  /** 0 takes any free port. */
  readonly port: number;
  /** Ports tried after `port` when it is taken (Spark's spark.port.maxRetries, 16); 0 for a port asked for by number. */
  readonly retries: number;
}

/**
 * Listens on the port asked for, or, when retries are allowed, the first free one after it, as
 * Spark's UI does from 4040. Resolves to the port taken; rejects with an OptionError that names
 * the option when no port could be had.
 */
export async function listen(server: Server, req: ListenRequest): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = req.port === 0 ? 0 : req.port + attempt;
    try {
      await listenOnce(server, req.host, port);
      return (server.address() as AddressInfo).port;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE" && attempt < req.retries && port + 1 <= 65535) continue;
      throw new OptionError(whyNot(req, port, code, (e as Error).message));
    }
  }
}

function listenOnce(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (e: Error) => {
      server.off("listening", listening);
      reject(e);
    };
    const listening = () => {
      server.off("error", failed);
      resolve();
    };
    server.once("error", failed);
    server.once("listening", listening);
    server.listen(port, host);
  });
}

function whyNot(req: ListenRequest, port: number, code: string | undefined, message: string): string {
  const where = `Session: option "${req.option}`;
  if (code === "EADDRINUSE" && req.retries > 0) {
    return `${where}": ports ${req.port} to ${port} on ${req.host} are all in use: give ${req.option}: { port } a free port, or port 0 for any free one`;
  }
  if (code === "EADDRINUSE") {
    return `${where}.port": port ${port} on ${req.host} is already in use: stop what listens there, choose another ${req.option}.port, or give ${req.option}: true to take the first free port from the default`;
  }
  if (code === "EACCES") return `${where}.port": not allowed to listen on port ${port} (ports below 1024 need privileges): choose a port from 1024`;
  return `${where}.host": cannot listen on ${req.host}:${port} (${message}): give ${req.option}.host an address of this machine, e.g. "127.0.0.1" or "0.0.0.0"`;
}
