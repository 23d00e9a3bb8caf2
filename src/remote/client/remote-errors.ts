import { Code, ConnectError } from "@connectrpc/connect";
import { AnalysisError, SparkConnectError } from "../../errors/errors.js";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import type { ConnectionSpec } from "./connection-string.js";

/** Spark's exceptions that mean "the query is wrong", which Sluice raises as AnalysisError in both backends. */
const ANALYSIS_CLASSES = new Set([
  "org.apache.spark.sql.AnalysisException",
  "org.apache.spark.sql.catalyst.ExtendedAnalysisException",
  "org.apache.spark.sql.catalyst.parser.ParseException",
]);

/** The gRPC status name Spark's clients print ("UNAVAILABLE", "INTERNAL"...). */
export function statusName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

function parsed<T>(text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * A Sluice error for what a call to the server threw: Spark's own errors keep their class, SQLSTATE
 * and message (analysis errors as AnalysisError, as the embedded engine raises them); transport
 * failures say which server could not be reached, and why.
 */
export function remoteError(e: unknown, spec: ConnectionSpec, what: string, connected = false): Error {
  if (e instanceof SparkConnectError || e instanceof AnalysisError) return e;
  const ce = ConnectError.from(e);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  const code = statusName(ce.code);
  if (info) {
    const m = info.metadata;
    const classes = parsed<string[]>(m["classes"], [info.reason]);
    const condition = {
      ...(m["errorClass"] ? { errorClass: m["errorClass"] } : {}),
      ...(m["sqlState"] ? { sqlState: m["sqlState"] } : {}),
      messageParameters: parsed<Record<string, string>>(m["messageParameters"], {}),
      classes,
    };
    const error = new SparkConnectError(ce.rawMessage, code, condition, { cause: ce });
    if (classes.some((c) => ANALYSIS_CLASSES.has(c))) {
      return new AnalysisError(ce.rawMessage, { errorClass: condition.errorClass, sqlState: condition.sqlState, cause: error });
    }
    return error;
  }
  if (connected && lostConnection(ce)) {
    return new SparkConnectError(`${what}: the connection to the Spark Connect server at ${spec.display} was lost: ${ce.rawMessage}; is the server still running?`, "UNAVAILABLE", {}, { cause: ce });
  }
  return new SparkConnectError(transportMessage(ce, spec, what), code, {}, { cause: ce });
}

/** The peer closed the HTTP/2 connection under a call (a server that went away, or one that never spoke HTTP/2 in clear). */
export function lostConnection(ce: ConnectError): boolean {
  return ce.code === Code.Canceled && /stream closed with error code CANCEL|connection closed|socket hang up/i.test(ce.rawMessage);
}

function transportMessage(ce: ConnectError, spec: ConnectionSpec, what: string): string {
  const raw = ce.rawMessage;
  const where = `the Spark Connect server at ${spec.display}`;
  if (/wrong version number|packet length too long|http request|EPROTO/i.test(raw)) {
    return `${what}: ${where} does not speak TLS, but the connection string asks for it (use_ssl=true, or a token, which implies TLS to other hosts than this machine): ${raw}. Set use_ssl=false if the server has no TLS, or reach it through the TLS proxy in front of it`;
  }
  if (ce.code === Code.Unavailable && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|closed|GOAWAY|PING timed out/i.test(raw)) {
    const hint = /ENOTFOUND|EAI_AGAIN/.test(raw)
      ? "the host name does not resolve: check the host of the connection string"
      : /PING timed out/.test(raw)
        ? "it accepted the connection but does not answer (frozen, or not a gRPC server)"
        : spec.useSsl
          ? "is it running, and does it serve TLS at that port (use_ssl=false if it does not)?"
          : "is it running at that port? (scripts/spark-connect.sh start starts one on this machine)";
    return `${what}: cannot reach ${where}: ${raw}; ${hint}`;
  }
  if (ce.code === Code.Unauthenticated || ce.code === Code.PermissionDenied) {
    return `${what}: ${where} refused the credentials: ${raw}; give the server's token as ;token=... in the connection string (or SPARK_CONNECT_AUTHENTICATE_TOKEN)`;
  }
  if (ce.code === Code.DeadlineExceeded) return `${what}: ${where} did not answer in time: ${raw}`;
  // A TLS server closes a plaintext HTTP/2 connection at its first bytes: the stream ends cancelled or with a protocol error.
  if (!spec.useSsl && (/protocol|RST_STREAM|ERR_HTTP2|malformed/i.test(raw) || lostConnection(ce))) {
    return `${what}: ${where} did not answer in plaintext gRPC: ${raw}; if it serves TLS, add ;use_ssl=true to the connection string`;
  }
  return `${what}: ${where} failed the call (${statusName(ce.code)}): ${raw}`;
}
