import type { DataFrame } from "../api/data-frame.js";
import { parseSqlQuery } from "./query-parser.js";
import { translateQuery } from "./translate.js";

/** `session.sql(text)`: the query as a DataFrame over the views `view` resolves. */
export function sqlToDataFrame(text: string, view: (name: string) => DataFrame<any> | undefined): DataFrame<any> {
  const parsed = parseSqlQuery(text);
  return translateQuery({ sql: text, spans: parsed.spans, view }, parsed);
}
