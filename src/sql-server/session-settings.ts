import { PgError, SQLSTATE } from "./error-response.js";

/**
 * A connection's run-time parameters, as Postgres keeps them per session: the ones reported to
 * the client at startup (ParameterStatus) and again when they change, the ones SHOW reads and SET
 * writes. Parameters that describe how values are printed (time zone, date style, encoding) are
 * fixed, since Sluice always prints UTC ISO text in UTF-8: setting them to what they already are
 * is accepted, anything else refused. Other names are kept as given, so tools that SET their own
 * preferences carry on; statement_timeout is honored.
 */

/** What the server says it is. psql and drivers read the leading number (16.0), as they do for "16.4 (Debian ...)". */
export const SERVER_VERSION = "16.0 (Sluice)";
const SERVER_VERSION_NUM = "160000";

/** Parameters Postgres reports to clients (GUC_REPORT), in its order. */
const REPORTED = [
  "server_version", "server_encoding", "client_encoding", "application_name", "default_transaction_read_only", "is_superuser",
  "session_authorization", "DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes", "standard_conforming_strings",
] as const;

/** Fixed parameters and the spellings of their one value that SET accepts. */
const FIXED: Readonly<Record<string, { readonly value: string; readonly accepts: RegExp; readonly why: string }>> = {
  client_encoding: { value: "UTF8", accepts: /^(utf-?8|unicode)$/i, why: "Sluice sends text in UTF-8" },
  timezone: { value: "UTC", accepts: /^(utc|etc\/utc|gmt|etc\/gmt|uct|zulu|z|0|\+?00(:00)?)$/i, why: "Sluice's times are UTC" },
  datestyle: { value: "ISO, MDY", accepts: /^iso(, ?(mdy|dmy|ymd))?$/i, why: "Sluice prints dates in ISO format" },
  intervalstyle: { value: "postgres", accepts: /^postgres$/i, why: "Sluice prints intervals in Postgres's style" },
  standard_conforming_strings: { value: "on", accepts: /^(on|true|1)$/i, why: "a backslash in a string literal is literal" },
  default_transaction_read_only: { value: "on", accepts: /^(on|true|1)$/i, why: "Sluice's SQL server is read-only" },
  transaction_read_only: { value: "on", accepts: /^(on|true|1)$/i, why: "Sluice's SQL server is read-only" },
};

export class SessionSettings {
  private readonly values = new Map<string, { name: string; value: string }>();
  private readonly defaults = new Map<string, string>();

  constructor(user: string, applicationName: string, statementTimeoutMs: number) {
    const initial: [string, string][] = [
      ["server_version", SERVER_VERSION],
      ["server_version_num", SERVER_VERSION_NUM],
      ["server_encoding", "UTF8"],
      ["client_encoding", FIXED.client_encoding!.value],
      ["application_name", applicationName],
      ["default_transaction_read_only", "on"],
      ["transaction_read_only", "on"],
      ["is_superuser", "off"],
      ["session_authorization", user],
      ["DateStyle", FIXED.datestyle!.value],
      ["IntervalStyle", FIXED.intervalstyle!.value],
      ["TimeZone", FIXED.timezone!.value],
      ["integer_datetimes", "on"],
      ["standard_conforming_strings", "on"],
      ["transaction_isolation", "serializable"],
      ["statement_timeout", timeoutText(statementTimeoutMs)],
      ["extra_float_digits", "1"],
      ["search_path", '"$user", public'],
    ];
    for (const [name, value] of initial) {
      this.values.set(name.toLowerCase(), { name, value });
      this.defaults.set(name.toLowerCase(), value);
    }
  }

  /** The parameters reported at startup, name and value. */
  reported(): [string, string][] {
    return REPORTED.map((name) => [name, this.values.get(name.toLowerCase())!.value]);
  }

  show(name: string): { name: string; value: string } {
    const entry = this.values.get(name.toLowerCase());
    if (!entry) throw new PgError(SQLSTATE.undefinedObject, `unrecognized configuration parameter "${name}"`);
    return entry;
  }

  all(): { name: string; value: string }[] {
    return [...this.values.values()].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  }

  /** Sets a parameter (null: back to its default); returns the ParameterStatus to send when a reported one changed. */
  set(name: string, value: string | null): [string, string] | null {
    const key = name.toLowerCase();
    if (key === "transaction") return null; // SET TRANSACTION ...: every transaction is read-only already
    name = this.values.get(key)?.name ?? name;
    const fixed = FIXED[key];
    if (fixed && value !== null && !fixed.accepts.test(value.trim())) {
      throw new PgError(SQLSTATE.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, { detail: `${fixed.why}: it stays ${fixed.value}.` });
    }
    if (["server_version", "server_version_num", "server_encoding", "integer_datetimes", "is_superuser", "session_authorization"].includes(key)) {
      throw new PgError("55P02", `parameter "${name}" cannot be changed`);
    }
    const next = value === null || fixed ? (this.defaults.get(key) ?? "") : key === "statement_timeout" ? timeoutText(timeoutMs(value)) : value;
    const previous = this.values.get(key);
    this.values.set(key, { name: previous?.name ?? key, value: next });
    const reported = REPORTED.find((r) => r.toLowerCase() === key);
    return reported !== undefined && previous?.value !== next ? [reported, next] : null;
  }

  /** statement_timeout in ms; 0 for none. */
  get statementTimeoutMs(): number {
    return timeoutMs(this.values.get("statement_timeout")!.value);
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** A timeout as SHOW prints it: in the largest unit that divides it ("5s", "2min", "150ms"), 0 as "0". */
function timeoutText(ms: number): string {
  if (ms === 0) return "0";
  const [unit, size] = Object.entries(UNIT_MS)
    .reverse()
    .find(([, size]) => ms % size === 0)!;
  return `${ms / size}${unit}`;
}

/** A statement_timeout as Postgres reads it: milliseconds, or a number with a unit ("5s", "2 min"). */
function timeoutMs(text: string): number {
  const m = /^\s*(\d+)\s*(ms|s|min|h|d)?\s*$/.exec(text);
  if (!m) {
    throw new PgError(SQLSTATE.invalidParameterValue, `invalid value for parameter "statement_timeout": "${text}"`, {
      hint: 'Valid units for this parameter are "ms", "s", "min", "h", and "d".',
    });
  }
  return Number(m[1]) * UNIT_MS[m[2] ?? "ms"]!;
}
