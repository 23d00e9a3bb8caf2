/** Where the pages and the endpoints of one session's UI live. */
export interface UiPaths {
  readonly queriesPage: string;
  readonly statisticsPage: string;
  /** `/api/v1/applications/<appId>/sql/streaming/queries` */
  readonly queriesApi: string;
}

/** The HTML of a page: Sluice's bar and the data the page's script renders (embedded, so the first paint needs no request). */
export function pageHtml(title: string, active: "queries" | "query", data: Record<string, unknown>, paths: UiPaths): string {
  // JSON inside a script element: "<" escaped so no value can close the element.
  const json = JSON.stringify({ page: active, ...data, statisticsPath: paths.statisticsPage, queriesApi: paths.queriesApi }).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - Sluice</title>
<link rel="stylesheet" href="/static/uPlot.min.css">
<link rel="stylesheet" href="/static/sluice-ui.css">
</head>
<body>
<header class="bar"><a class="brand" href="${paths.queriesPage}">Sluice</a>
<nav><a href="${paths.queriesPage}"${active === "queries" ? ' class="active"' : ""}>Structured Streaming</a></nav></header>
<main id="app" data-page="${active}"></main>
<script id="sluice-data" type="application/json">${json}</script>
<script src="/static/uPlot.iife.min.js"></script>
<script src="/static/sluice-ui.js"></script>
</body>
</html>
`;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
