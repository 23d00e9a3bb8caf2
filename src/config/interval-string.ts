/**
 * Spark's interval strings, as `IntervalUtils.fromIntervalString` reads them, into a calendar
 * interval: whole months (a month has no fixed length, so what a month is worth is the caller's
 * rule) and milliseconds (days are 24 hours: Sluice's times are UTC).
 *
 * - A unit list: "10 seconds", "1 hour 30 minutes", "2 years 5 months", "1 year -13 months"
 *   (each part signed on its own), with Sluice's short units too ("500 ms", "5 min", "2 h").
 * - After the INTERVAL keyword (any case), the SQL literal forms: the same list with quoted or
 *   bare numbers (`interval '1' day '2' hours`), a quoted list (`interval '1 day 2 hours'`), and the
 *   ANSI unit-to-unit forms `interval '1-2' year to month`, `interval '1 2:3:4' day to second`
 *   (also day to hour / minute, hour to minute / second, minute to second), whose fields after the
 *   first must lie within their unit (months 0-11, hours 0-23, minutes and seconds 0-59).
 *
 * Anything else reads as null; callers word the error for their argument.
 */
export interface CalendarInterval {
  readonly months: number;
  readonly ms: number;
}

const MS_PER_DAY = 86_400_000;

/** What one of each unit is worth. */
const UNITS: Readonly<Record<string, CalendarInterval>> = {
  year: { months: 12, ms: 0 },
  month: { months: 1, ms: 0 },
  week: { months: 0, ms: 7 * MS_PER_DAY },
  day: { months: 0, ms: MS_PER_DAY },
  hour: { months: 0, ms: 3_600_000 },
  minute: { months: 0, ms: 60_000 },
  second: { months: 0, ms: 1000 },
  millisecond: { months: 0, ms: 1 },
  microsecond: { months: 0, ms: 0.001 },
};

/** Sluice's short spellings, which its durations have always taken. */
const SHORT_UNITS: Readonly<Record<string, string>> = {
  ms: "millisecond",
  us: "microsecond",
  s: "second",
  sec: "second",
  secs: "second",
  m: "minute",
  min: "minute",
  mins: "minute",
  h: "hour",
  d: "day",
};

function unitOf(word: string): CalendarInterval | undefined {
  const w = word.toLowerCase();
  const name = SHORT_UNITS[w] ?? (w.endsWith("s") && !(w in UNITS) ? w.slice(0, -1) : w);
  return Object.hasOwn(UNITS, name) ? UNITS[name] : undefined;
}

type Token = { readonly kind: "number" | "word"; readonly text: string } | { readonly kind: "quoted"; readonly text: string };

const TOKEN = /\s*(?:([+-]?\d+(?:\.\d+)?)|([a-z]+)|'([^']*)'|"([^"]*)")/iy;

function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (text.slice(TOKEN.lastIndex).trim() !== "") {
    const m = TOKEN.exec(text);
    if (!m) return null;
    if (m[1] !== undefined) tokens.push({ kind: "number", text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: "word", text: m[2] });
    else tokens.push({ kind: "quoted", text: m[3] ?? m[4]! });
  }
  return tokens;
}

const NUMBER = /^\s*[+-]?\d+(?:\.\d+)?\s*$/;

/** Value-unit pairs; `quotedValues`: the SQL form, whose values may be string literals. */
function unitList(tokens: readonly Token[], quotedValues: boolean): CalendarInterval | null {
  if (tokens.length === 0 || tokens.length % 2 !== 0) return null;
  let months = 0;
  let ms = 0;
  for (let i = 0; i < tokens.length; i += 2) {
    const value = tokens[i]!;
    const unit = tokens[i + 1]!;
    const numeric = value.kind === "number" || (quotedValues && value.kind === "quoted" && NUMBER.test(value.text));
    const worth = unit.kind === "word" ? unitOf(unit.text) : undefined;
    if (!numeric || !worth) return null;
    const n = Number(value.text);
    // Months are whole: Spark refuses "1.5 months" rather than guess a length for the half.
    if (worth.months !== 0 && !Number.isInteger(n)) return null;
    months += n * worth.months;
    ms += n * worth.ms;
  }
  return { months, ms };
}

/** The fields of the ANSI day-time forms, in order, and what one of each is worth. */
const DAY_TIME_FIELDS = ["day", "hour", "minute", "second"] as const;
type DayTimeField = (typeof DAY_TIME_FIELDS)[number];
/** The largest value a field may have when it is not the first of its form. */
const FIELD_LIMIT: Readonly<Record<DayTimeField, number>> = { day: Infinity, hour: 23, minute: 59, second: 59.999999999 };

/** `'1-2' year to month`, `'1 2:3:4' day to second` and the other ANSI unit-to-unit forms. */
function unitToUnit(value: string, from: string, to: string): CalendarInterval | null {
  const signed = /^\s*([+-]?)(.*?)\s*$/.exec(value)!;
  const sign = signed[1] === "-" ? -1 : 1;
  const body = signed[2]!;
  if (from === "year" && to === "month") {
    const m = /^(\d+)-(\d+)$/.exec(body);
    if (!m || Number(m[2]) > 11) return null;
    return { months: sign * (Number(m[1]) * 12 + Number(m[2])), ms: 0 };
  }
  const first = DAY_TIME_FIELDS.indexOf(from as DayTimeField);
  const last = DAY_TIME_FIELDS.indexOf(to as DayTimeField);
  if (first < 0 || last <= first) return null;
  const fields = DAY_TIME_FIELDS.slice(first, last + 1);
  // Days are followed by a space, the other fields by a colon; only seconds have a fraction.
  const pattern = fields.map((f, i) => `${i === 0 ? "" : fields[i - 1] === "day" ? " " : ":"}(\\d+${f === "second" ? "(?:\\.\\d+)?" : ""})`).join("");
  const m = new RegExp(`^${pattern}$`).exec(body);
  if (!m) return null;
  let ms = 0;
  for (const [i, f] of fields.entries()) {
    const n = Number(m[i + 1]);
    if (i > 0 && n > FIELD_LIMIT[f]) return null;
    ms += n * UNITS[f]!.ms;
  }
  return { months: 0, ms: sign * ms };
}

/** The calendar interval `text` stands for, or null when it is not one of Spark's interval strings. */
export function readIntervalString(text: string): CalendarInterval | null {
  const tokens = tokenize(text);
  if (!tokens) return null;
  const [head, ...rest] = tokens;
  if (head?.kind !== "word" || head.text.toLowerCase() !== "interval") return unitList(tokens, false);
  const [a, b, keyword, c] = rest;
  if (rest.length === 4 && a!.kind === "quoted" && b!.kind === "word" && keyword!.kind === "word" && keyword!.text.toLowerCase() === "to" && c!.kind === "word") {
    return unitToUnit(a!.text, b!.text.toLowerCase(), c!.text.toLowerCase());
  }
  if (rest.length === 1 && a!.kind === "quoted") {
    const inner = tokenize(a!.text);
    return inner ? unitList(inner, false) : null;
  }
  return unitList(rest, true);
}
