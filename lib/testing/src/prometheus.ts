/**
 * A real Prometheus (Debian's `prometheus` package) on a loopback port, scraping the processes a
 * demo or a test started, with the project's alert rules loaded. Queries go through its HTTP API,
 * so what a dashboard or an alert would see is what the caller sees.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dumpYaml } from '@kubernetes/client-node';
import { freePort } from './ports.ts';
import { ManagedProcess } from './process.ts';
import { waitUntil } from './readiness.ts';

export const PROMETHEUS = '/usr/bin/prometheus';

export interface ScrapeTarget {
  /** The `job` label (one per component). */
  readonly job: string;
  /** `host:port` serving /metrics. */
  readonly address: string;
  /** Extra target labels, e.g. `{ member: 'member1' }`. */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface PrometheusOptions {
  /** Folder for its configuration, data and log. */
  readonly dir: string;
  readonly targets: readonly ScrapeTarget[];
  /** Rule files loaded as they are (alerts are evaluated every scrape interval). */
  readonly ruleFiles?: readonly string[];
  /** Scrape and rule evaluation interval in seconds (default 1). */
  readonly intervalSeconds?: number;
  readonly pidFile?: string;
}

/** One series of an instant or range query: its labels and its samples as [unix seconds, value]. */
export interface PromSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly values: readonly (readonly [number, string])[];
}

export interface PromTarget {
  readonly job: string;
  readonly instance: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

export interface PromAlert {
  readonly name: string;
  readonly state: 'pending' | 'firing';
  readonly labels: Readonly<Record<string, string>>;
}

interface ApiAnswer<T> {
  status: 'success' | 'error';
  data: T;
  error?: string;
  errorType?: string;
}

interface QueryData {
  resultType: 'vector' | 'matrix' | 'scalar' | 'string';
  result: unknown;
}

export class LocalPrometheus {
  readonly url: string;
  readonly process: ManagedProcess;
  readonly intervalSeconds: number;
  /** How many targets it was configured with. */
  readonly targetCount: number;

  private constructor(url: string, process: ManagedProcess, intervalSeconds: number, targetCount: number) {
    this.url = url;
    this.process = process;
    this.intervalSeconds = intervalSeconds;
    this.targetCount = targetCount;
  }

  /** Writes its configuration, starts it, and waits until it is ready. */
  static async start(opts: PrometheusOptions): Promise<LocalPrometheus> {
    const interval = opts.intervalSeconds ?? 1;
    await mkdir(join(opts.dir, 'data'), { recursive: true });
    const configFile = join(opts.dir, 'prometheus.yml');
    await writeFile(configFile, prometheusConfig(opts.targets, opts.ruleFiles ?? [], interval));
    const port = await freePort();
    const proc = new ManagedProcess({
      name: 'prometheus',
      command: PROMETHEUS,
      args: [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(opts.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1d',
        '--log.level=warn',
      ],
      logDir: opts.dir,
      ...(opts.pidFile !== undefined ? { pidFile: opts.pidFile } : {}),
    });
    await proc.start();
    const prometheus = new LocalPrometheus(`http://127.0.0.1:${port}`, proc, interval, opts.targets.length);
    await proc.waitReady(
      'prometheus ready',
      async () => (await fetch(`${prometheus.url}/-/ready`).catch(() => undefined))?.status === 200,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    return prometheus;
  }

  stop(): Promise<void> {
    return this.process.stop();
  }

  /** An instant query at `time` (unix seconds; default now). */
  async query(expr: string, time?: number): Promise<PromSeries[]> {
    const params = new URLSearchParams({ query: expr });
    if (time !== undefined) params.set('time', String(time));
    return seriesOf(await this.api<QueryData>('/api/v1/query', params));
  }

  /** A range query over [start, end] (unix seconds) at `stepSeconds`. */
  async queryRange(expr: string, start: number, end: number, stepSeconds: number): Promise<PromSeries[]> {
    const params = new URLSearchParams({
      query: expr,
      start: String(start),
      end: String(end),
      step: String(stepSeconds),
    });
    return seriesOf(await this.api<QueryData>('/api/v1/query_range', params));
  }

  async targets(): Promise<PromTarget[]> {
    const data = await this.api<{
      activeTargets: {
        labels: Record<string, string>;
        health: PromTarget['health'];
        lastError: string;
      }[];
    }>('/api/v1/targets', new URLSearchParams({ state: 'active' }));
    return data.activeTargets.map((t) => ({
      job: t.labels['job'] ?? '',
      instance: t.labels['instance'] ?? '',
      health: t.health,
      lastError: t.lastError,
    }));
  }

  /** Alerts pending or firing now. */
  async alerts(): Promise<PromAlert[]> {
    const data = await this.api<{
      alerts: { labels: Record<string, string>; state: PromAlert['state'] }[];
    }>('/api/v1/alerts', new URLSearchParams());
    return data.alerts.map((a) => ({ name: a.labels['alertname'] ?? '', state: a.state, labels: a.labels }));
  }

  /**
   * Waits until every configured target has been scraped successfully at least once (Prometheus
   * starts its scrape pools a few seconds after it is ready).
   */
  async waitForTargetsUp(timeoutMs = 30_000): Promise<void> {
    let down: PromTarget[] = [];
    await waitUntil(
      'every scrape target up',
      async () => {
        const targets = await this.targets();
        down = targets.filter((t) => t.health !== 'up');
        return targets.length === this.targetCount && down.length === 0;
      },
      { timeoutMs, intervalMs: 250 },
    ).catch((err: unknown) => {
      const detail = down.map((t) => `${t.job} ${t.instance}: ${t.health} ${t.lastError}`).join('; ');
      throw new Error(`${(err as Error).message} (${detail})`, { cause: err });
    });
  }

  private async api<T>(path: string, params: URLSearchParams): Promise<T> {
    const res = await fetch(`${this.url}${path}?${params.toString()}`, {
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as ApiAnswer<T>;
    if (body.status !== 'success') {
      throw new Error(
        `prometheus ${path} ${params.get('query') ?? ''}: ${body.errorType ?? ''} ${body.error ?? ''}`,
      );
    }
    return body.data;
  }
}

/** The configuration: one scrape job per component, static targets, the rule files. */
export function prometheusConfig(
  targets: readonly ScrapeTarget[],
  ruleFiles: readonly string[],
  intervalSeconds: number,
): string {
  const jobs = new Map<string, ScrapeTarget[]>();
  for (const t of targets) jobs.set(t.job, [...(jobs.get(t.job) ?? []), t]);
  return dumpYaml({
    global: {
      scrape_interval: `${intervalSeconds}s`,
      scrape_timeout: `${intervalSeconds}s`,
      evaluation_interval: `${intervalSeconds}s`,
    },
    rule_files: [...ruleFiles],
    scrape_configs: [...jobs].map(([job, ts]) => ({
      job_name: job,
      static_configs: ts.map((t) => ({ targets: [t.address], labels: { ...t.labels } })),
    })),
  });
}

function seriesOf(data: QueryData): PromSeries[] {
  switch (data.resultType) {
    case 'vector':
      return (data.result as { metric: Record<string, string>; value: [number, string] }[]).map((r) => ({
        metric: r.metric,
        values: [r.value],
      }));
    case 'matrix':
      return (data.result as { metric: Record<string, string>; values: [number, string][] }[]).map((r) => ({
        metric: r.metric,
        values: r.values,
      }));
    case 'scalar':
    case 'string':
      return [{ metric: {}, values: [data.result as [number, string]] }];
  }
}
