/**
 * The Grafana dashboards of deploy/grafana as data: their panels and the PromQL each one runs,
 * with Grafana's variables replaced by values Prometheus accepts. The packaging tests parse the
 * queries with promtool; the demo runs them against a real Prometheus to show each returns data.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.ts';
import type { LocalPrometheus } from './prometheus.ts';

export const GRAFANA_DIR = join(REPO_ROOT, 'deploy', 'grafana');

export interface DashboardTarget {
  readonly expr?: string;
}
export interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly DashboardTarget[];
}
export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly { name: string; type: string; definition?: string }[] };
}

/** One query of a dashboard: which file, where in it, and the PromQL as written. */
export interface DashboardQuery {
  readonly file: string;
  readonly where: string;
  readonly expr: string;
}

/** Every dashboard file of deploy/grafana, parsed. */
export async function loadDashboards(dir = GRAFANA_DIR): Promise<{ file: string; dashboard: Dashboard }[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      file,
      dashboard: JSON.parse(await readFile(join(dir, file), 'utf8')) as Dashboard,
    })),
  );
}

/** Every query of a dashboard: panel targets and query variables (`label_values(expr, label)`). */
export function queriesOf(file: string, d: Dashboard): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  for (const p of d.panels) {
    for (const t of p.targets ?? []) {
      if (t.expr !== undefined) out.push({ file, where: `panel "${p.title}"`, expr: t.expr });
    }
  }
  for (const v of d.templating.list) {
    const m = v.type === 'query' ? /^label_values\((.*),\s*\w+\)$/.exec(v.definition ?? '') : null;
    if (m?.[1] !== undefined) out.push({ file, where: `variable ${v.name}`, expr: m[1] });
  }
  return out;
}

export interface GrafanaVariables {
  /** `$__rate_interval` (default 5m). */
  readonly rateInterval?: string;
  /** `$__interval` (default 1m). */
  readonly interval?: string;
  /** `$__range` (default 6h). */
  readonly range?: string;
}

/** Grafana's built-in variables by the given values, dashboard variables by "any value". */
export function withGrafanaVariables(expr: string, vars: GrafanaVariables = {}): string {
  return expr
    .replaceAll('$__rate_interval', vars.rateInterval ?? '5m')
    .replaceAll('$__interval', vars.interval ?? '1m')
    .replaceAll('$__range', vars.range ?? '6h')
    .replace(/\$\{?(\w+)\}?/g, '.*');
}

export interface QueryOutcome extends DashboardQuery {
  /** Series that had at least one sample in the window. */
  readonly series: number;
  /** Why Prometheus refused the query, if it did. */
  readonly error?: string;
}

/**
 * Runs every dashboard query over the window [start, end] (unix seconds) as Grafana would draw
 * it: a range query whose rate interval is four scrape intervals (Grafana's floor) and whose
 * `$__range` is the window.
 */
export async function runDashboardQueries(
  prometheus: LocalPrometheus,
  window: { readonly start: number; readonly end: number },
): Promise<QueryOutcome[]> {
  const queries = (await loadDashboards()).flatMap(({ file, dashboard }) => queriesOf(file, dashboard));
  const step = prometheus.intervalSeconds;
  const vars: GrafanaVariables = {
    rateInterval: `${4 * step}s`,
    interval: `${step}s`,
    range: `${Math.max(1, Math.ceil(window.end - window.start))}s`,
  };
  const outcomes: QueryOutcome[] = [];
  for (const q of queries) {
    try {
      const series = await prometheus.queryRange(
        withGrafanaVariables(q.expr, vars),
        window.start,
        window.end,
        step,
      );
      outcomes.push({ ...q, series: series.filter((s) => s.values.length > 0).length });
    } catch (err) {
      outcomes.push({ ...q, series: 0, error: (err as Error).message });
    }
  }
  return outcomes;
}
