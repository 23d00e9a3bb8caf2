/** The pages' style sheet, served as /static/sluice-ui.css: Spark's UI, plainly (a top bar, bordered tables). */
export const STYLES = `
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #222; background: #fff; }
header.bar { display: flex; align-items: baseline; gap: 24px; padding: 10px 20px; background: #f5f5f5; border-bottom: 1px solid #ddd; }
header.bar .brand { font-size: 20px; font-weight: 600; color: #0b6fa4; text-decoration: none; }
header.bar nav a { color: #333; text-decoration: none; padding: 4px 10px; border-radius: 4px; }
header.bar nav a.active { background: #0b6fa4; color: #fff; }
main { padding: 8px 20px 40px; }
h3 { margin: 18px 0 8px; font-size: 18px; }
h4 { margin: 22px 0 8px; font-size: 16px; border-bottom: 1px solid #eee; padding-bottom: 4px; }
table.table { border-collapse: collapse; width: 100%; margin-bottom: 12px; }
table.table th, table.table td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
table.table th { background: #f5f5f5; font-weight: 600; }
table.table tbody tr:nth-child(even) { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: #888; font-style: italic; }
.status.running { color: #1a7f37; font-weight: 600; }
.status.failed { color: #c62828; font-weight: 600; }
.status.finished { color: #555; font-weight: 600; }
.error pre, pre.plan { white-space: pre-wrap; word-break: break-word; margin: 4px 0; font-size: 12px; }
.error pre { color: #c62828; max-width: 60em; }
pre.plan { background: #f8f8f8; border: 1px solid #eee; padding: 10px; }
#query-summary p { margin: 2px 0; }
#query-exception { margin-top: 8px; padding: 8px; border: 1px solid #f3c2c2; background: #fff5f5; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 14px 20px; }
.chart { border: 1px solid #eee; padding: 6px 8px; min-width: 0; }
.chart-title { font-weight: 600; margin-bottom: 4px; }
.chart .plot { width: 100%; overflow: hidden; }
`;
