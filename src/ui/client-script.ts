/**
 * The pages' script, served as /static/sluice-ui.js. It renders the data the server embedded in the
 * page (#sluice-data) and keeps it live: the queries page polls the queries endpoint, the query
 * page appends each batch's point from the server's event stream to its uPlot charts. It is kept
 * as text here, not as a file beside the module, so that the compiled package (tsc alone) and
 * bundles of it carry it. Plain ES2017 for any current browser; no template strings inside.
 */
export const CLIENT_SCRIPT = String.raw`(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("sluice-data").textContent);
  var app = document.getElementById("app");
  var RECENT_BATCHES = 20;
  var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function duration(ms) {
    if (ms < 1000) return Math.round(ms) + " ms";
    var s = Math.floor(ms / 1000);
    if (s < 60) return (ms / 1000).toFixed(1) + " s";
    var m = Math.floor(s / 60);
    if (m < 60) return m + " min " + (s % 60) + " s";
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }
  function num(x, digits) { return x === null || x === undefined ? "-" : Number(x).toFixed(digits === undefined ? 2 : digits); }
  function time(iso) { return iso ? new Date(iso).toLocaleString() : "-"; }
  function statsLink(run, text) { return h("a", { href: data.statisticsPath + "?id=" + encodeURIComponent(run.runId) }, [text]); }
  function table(id, headers, rows) {
    return h("table", { id: id, class: "table" }, [
      h("thead", {}, [h("tr", {}, headers.map(function (t) { return h("th", {}, [t]); }))]),
      h("tbody", {}, rows.length ? rows : [h("tr", {}, [h("td", { colspan: String(headers.length), class: "empty" }, ["none"])])]),
    ]);
  }

  // ---- the queries page: Spark's active and completed tables ----
  function renderQueries(list) {
    var active = list.filter(function (q) { return q.status === "RUNNING"; });
    var done = list.filter(function (q) { return q.status !== "RUNNING"; });
    var cols = ["Name", "Status", "ID", "Run ID", "Start Time", "Duration", "Avg Input /sec", "Avg Process /sec", "Latest Batch"];
    function row(q, withError) {
      var cells = [
        h("td", {}, [statsLink(q, q.name || "<no name>")]), h("td", { class: "status " + q.status.toLowerCase() }, [q.status]), h("td", {}, [q.id]),
        h("td", {}, [statsLink(q, q.runId)]), h("td", {}, [time(q.startTimestamp)]), h("td", {}, [duration(q.durationMs)]),
        h("td", { class: "num" }, [num(q.avgInputRowsPerSecond)]), h("td", { class: "num" }, [num(q.avgProcessedRowsPerSecond)]),
        h("td", { class: "num" }, [q.latestBatchId === null ? "-" : String(q.latestBatchId)]),
      ];
      if (withError) cells.push(h("td", { class: "error" }, [q.exception ? h("pre", {}, [q.exception]) : "-"]));
      return h("tr", { "data-run-id": q.runId }, cells);
    }
    app.replaceChildren(
      h("h3", {}, ["Active Streaming Queries (" + active.length + ")"]),
      table("active-queries", cols, active.map(function (q) { return row(q, false); })),
      h("h3", {}, ["Completed Streaming Queries (" + done.length + ")"]),
      table("completed-queries", cols.concat(["Error"]), done.map(function (q) { return row(q, true); })),
    );
  }

  // ---- the query page: Spark's statistics charts, the recent batches, the plan ----
  function Chart(spec, parent) {
    this.spec = spec;
    this.keys = spec.series.slice();
    this.xs = [];
    this.ys = this.keys.map(function () { return []; });
    this.drawn = 0;
    this.plot = null;
    this.body = h("div", { class: "plot" });
    this.node = h("div", { class: "chart", "data-chart": spec.id, "data-points": "0", hidden: "" }, [
      h("div", { class: "chart-title" }, [spec.title + " (" + spec.unit + ")"]), this.body,
    ]);
    parent.appendChild(this.node);
  }
  Chart.prototype.label = function (key) {
    if (this.spec.seriesPrefix && key.indexOf(this.spec.seriesPrefix) === 0) return key.slice(this.spec.seriesPrefix.length);
    return key.indexOf(" ") > 0 ? key.slice(key.indexOf(" ") + 1) : key;
  };
  Chart.prototype.add = function (point) {
    var self = this, grew = false, any = false;
    if (this.spec.seriesPrefix) {
      Object.keys(point.values).sort().forEach(function (k) {
        if (k.indexOf(self.spec.seriesPrefix) === 0 && self.keys.indexOf(k) < 0) {
          self.keys.push(k);
          self.ys.push(self.xs.map(function () { return null; }));
          grew = true;
        }
      });
    }
    this.xs.push(point.t);
    this.keys.forEach(function (k, i) {
      var v = point.values[k];
      if (v !== undefined) any = true;
      self.ys[i].push(v === undefined ? null : v);
    });
    if (any) this.drawn++;
    if (this.drawn === 0) return;
    this.node.hidden = false;
    if (!this.plot || grew) this.create();
    else this.plot.setData([this.xs].concat(this.ys));
    this.node.setAttribute("data-points", String(this.drawn));
  };
  Chart.prototype.create = function () {
    var self = this;
    if (this.plot) this.plot.destroy();
    var opts = {
      width: Math.max(320, this.body.clientWidth || 480), height: 180,
      scales: { x: { time: true } },
      legend: { show: this.keys.length > 1 },
      series: [{}].concat(this.keys.map(function (k, i) {
        return { label: self.label(k), stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: true, points: { show: true, size: 4 } };
      })),
      axes: [{}, { size: 64 }],
    };
    this.plot = new uPlot(opts, [this.xs].concat(this.ys), this.body);
    window.sluiceCharts[this.spec.id] = this.plot;
  };

  function renderQuery() {
    var run = data.run, points = [];
    window.sluiceCharts = {};
    var header = h("div", { id: "query-summary" });
    var charts = h("div", { class: "charts" });
    var batches = h("div", { id: "recent-batches" });
    app.replaceChildren(
      h("h3", {}, ["Streaming Query Statistics"]), header,
      h("h4", {}, ["Charts"]), charts,
      h("h4", {}, ["Recent Batches"]), batches,
      h("h4", {}, ["Query Plan"]), h("pre", { id: "query-plan", class: "plan" }, [data.plan || "(not known)"]),
    );
    var all = data.charts.map(function (spec) { return new Chart(spec, charts); });
    function drawHeader() {
      var started = new Date(run.startTimestamp).getTime();
      var ms = (run.endTimestamp ? new Date(run.endTimestamp).getTime() : Date.now()) - started;
      var what = run.status === "RUNNING" ? "Running batches for " : "Ran batches for ";
      header.replaceChildren(
        h("p", {}, [what, h("strong", {}, [duration(ms)]), " since " + time(run.startTimestamp) + " (" + points.length + " completed batches, ",
          h("span", { class: "status " + run.status.toLowerCase(), id: "query-status" }, [run.status]), ")"]),
        h("p", {}, ["Name: ", h("strong", {}, [run.name || "<no name>"])]),
        h("p", {}, ["Id: ", h("strong", {}, [run.id])]),
        h("p", {}, ["RunId: ", h("strong", {}, [run.runId])]),
      );
      if (run.exception) header.appendChild(h("div", { class: "error", id: "query-exception" }, [h("strong", {}, ["Error"]), h("pre", {}, [run.exception])]));
    }
    function drawBatches() {
      var cols = ["Batch ID", "Batch Time", "Input Rows", "Input Rate (/sec)", "Process Rate (/sec)", "Batch Duration"];
      var rows = points.slice(-RECENT_BATCHES).reverse().map(function (p) {
        return h("tr", {}, [
          h("td", { class: "num" }, [String(p.batchId)]), h("td", {}, [time(p.timestamp)]),
          h("td", { class: "num" }, [String(p.values.numInputRows)]), h("td", { class: "num" }, [num(p.values.inputRowsPerSecond)]),
          h("td", { class: "num" }, [num(p.values.processedRowsPerSecond)]), h("td", { class: "num" }, [duration(p.values.batchDuration)]),
        ]);
      });
      batches.replaceChildren(table("batches", cols, rows));
    }
    function add(point) {
      // The stream replays what came after the page's last point; a point met twice is drawn once.
      if (points.length && point.batchId <= points[points.length - 1].batchId) return;
      points.push(point);
      all.forEach(function (c) { c.add(point); });
    }
    data.points.forEach(add);
    drawHeader();
    drawBatches();
    if (run.status !== "RUNNING") return;
    var ticker = setInterval(drawHeader, 1000);
    var after = points.length ? points[points.length - 1].batchId : -1;
    var events = new EventSource(data.events + "&after=" + after);
    events.addEventListener("point", function (e) { add(JSON.parse(e.data)); drawHeader(); drawBatches(); });
    events.addEventListener("terminated", function (e) { run = JSON.parse(e.data); clearInterval(ticker); events.close(); drawHeader(); });
  }

  if (data.page === "queries") {
    renderQueries(data.queries);
    setInterval(function () {
      fetch(data.queriesApi).then(function (r) { return r.json(); }).then(renderQueries).catch(function () {});
    }, 2000);
  } else {
    renderQuery();
  }
})();
`;
