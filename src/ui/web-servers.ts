import { createServer, type Server } from "node:http";
import * as os from "node:os";
import type { ServerOption } from "../config/options.js";
import { ProgressMetrics } from "../metrics/progress-metrics.js";
import type { StreamingQueryManager } from "../runtime/query-manager.js";
import { listen, type ListenRequest } from "./listen.js";
import { QueryHistory, type QueryHistoryLimits } from "./query-history.js";
import { metricsOnlyHandler, uiHandler, type Handler } from "./routes.js";

/** Spark's UI port, and how many after it are tried (spark.port.maxRetries). */
export const DEFAULT_UI_PORT = 4040;
export const PORT_RETRIES = 16;
/** The port Prometheus exporters conventionally take (OpenTelemetry's Prometheus exporter's). */
export const DEFAULT_METRICS_PORT = 9464;
const DEFAULT_HOST = "127.0.0.1";

export interface WebServerSettings {
  readonly ui: ServerOption | undefined;
  readonly metrics: ServerOption | undefined;
}

/**
 * The session's web UI and Prometheus endpoint: listeners on its queries, and the HTTP servers
 * that show what they keep. Listening takes a moment, so the URLs are null until `ready` resolves.
 */
export class WebServers {
  uiWebUrl: string | null = null;
  metricsUrl: string | null = null;
  /** Resolves once every server listens; rejects with an OptionError naming the option when one cannot. */
  readonly ready: Promise<void>;
  private readonly servers: Server[] = [];
  private readonly listeners: (QueryHistory | ProgressMetrics)[] = [];

  /** Null when neither the UI nor metrics are asked for. */
  static start(settings: WebServerSettings, streams: StreamingQueryManager, limits: () => QueryHistoryLimits): WebServers | null {
    const { ui, metrics } = settings;
    return ui || metrics ? new WebServers(settings, streams, limits) : null;
  }

  private constructor({ ui, metrics }: WebServerSettings, private readonly streams: StreamingQueryManager, limits: () => QueryHistoryLimits) {
    // Metrics go on the UI's server unless turned off or given a server of their own.
    const metricsOnUi = Boolean(ui) && (metrics === undefined || metrics === true);
    const exporter = metrics || metricsOnUi ? this.listen(new ProgressMetrics()) : null;
    const starts: Promise<void>[] = [];
    if (ui) {
      const history = this.listen(new QueryHistory(limits, (id, runId) => [streams.get(id)].find((q) => q?.runId === runId)));
      const app = { id: `local-${Date.now()}`, name: "Sluice", startTime: new Date().toISOString() };
      const handler = uiHandler(history, app, metricsOnUi ? exporter : null);
      starts.push(
        this.serve(handler, request("ui", ui, DEFAULT_UI_PORT)).then((base) => {
          this.uiWebUrl = base;
          if (metricsOnUi) this.metricsUrl = `${base}/metrics`;
        }),
      );
    }
    if (exporter && !metricsOnUi) {
      starts.push(this.serve(metricsOnlyHandler(exporter), request("metrics", metrics!, DEFAULT_METRICS_PORT)).then((base) => void (this.metricsUrl = `${base}/metrics`)));
    }
    this.ready = Promise.all(starts).then(() => undefined);
    // Nobody may be awaiting `ready`: say why the UI is missing rather than leave an unhandled rejection.
    this.ready.catch((e: Error) => console.error(`Sluice web UI: ${e.message}`));
  }

  /** Stops listening (open pages' connections included) and leaves the queries alone. */
  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    for (const l of this.listeners) this.streams.removeListener(l);
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (!s.listening) return resolve();
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    this.uiWebUrl = null;
    this.metricsUrl = null;
  }

  private listen<L extends QueryHistory | ProgressMetrics>(listener: L): L {
    this.streams.addListener(listener);
    this.listeners.push(listener);
    return listener;
  }

  private async serve(handler: Handler, req: ListenRequest): Promise<string> {
    const server = createServer(handler);
    this.servers.push(server);
    const port = await listen(server, req);
    return `http://${urlHost(req.host)}:${port}`;
  }
}

function request(option: string, given: ServerOption, defaultPort: number): ListenRequest {
  const o = given === true ? {} : (given as Exclude<ServerOption, boolean>);
  const port = o.port ?? defaultPort;
  return { option, host: o.host ?? DEFAULT_HOST, port, retries: o.port === undefined ? PORT_RETRIES : 0 };
}

/** How a browser reaches the address: the machine's name for every-interface addresses (as Spark's uiWebUrl), brackets for IPv6. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return os.hostname();
  return host.includes(":") ? `[${host}]` : host;
}
