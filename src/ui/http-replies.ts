import type { ServerResponse } from "node:http";

export function reply(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  res.end(body);
}

export function replyJson(res: ServerResponse, value: unknown, status = 200): void {
  reply(res, status, "application/json; charset=utf-8", JSON.stringify(value, null, 2));
}

/** Errors as Spark's REST API gives them: a status and a line of text. */
export function replyNotFound(res: ServerResponse, message: string): void {
  reply(res, 404, "text/plain; charset=utf-8", `${message}\n`);
}
