import type { DataFrame } from "../api/data-frame.js";
import { parseSqlQuery } from "./query-parser.js";
import type { SqlContext } from "./scope.js";
import { translateQuery } from "./translate.js";

/** `session.sql(text)`: the query as a DataFrame over the views the catalog resolves. */
export function sqlToDataFrame(text: string, catalog: Pick<SqlContext, "view" | "oneRow">): DataFrame<any> {
  const parsed = parseSqlQuery(text);
  return translateQuery({ sql: text, spans: parsed.spans, ...catalog }, parsed);
}
