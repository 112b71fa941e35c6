/**
 * The metric names the three processes export, read from their registries, and the metric names
 * a PromQL expression uses. The registries are built from the same factories each process's
 * app wires (`createRegistry`, the runner's `createControllerMetrics`, the watch caches'
 * `createWatchCacheMetrics`, the product's own `create…Metrics` and the leader-election gauge
 * where the app adds it), so a renamed family shows up here without
 * any list to keep in step.
 */
import type { Registry } from 'prom-client';
import { DEFAULT_METRIC_PREFIX, createControllerMetrics, createRegistry } from '@kf/runtime';
import { memberMetricFamilies } from '@kf/member';
import { createWatchCacheMetrics, makeLeaderGauge } from '@kf/kube';
import { createAgentMetrics } from '../../agent/src/metrics.ts';
import { createProbeMetrics } from '../../probe/src/metrics.ts';
import { createControlPlaneMetrics } from '../../controlplane/src/metrics.ts';

export type Component = 'agent' | 'probe' | 'controlplane';

function registryOf(component: Component): Registry {
  const registry = createRegistry({ component, version: 'catalog' });
  createControllerMetrics(registry);
  createWatchCacheMetrics(registry); // every process watches
  switch (component) {
    case 'agent':
      createAgentMetrics(registry, 'member');
      makeLeaderGauge(registry); // the agent registers it with --leader-elect (the default)
      break;
    case 'probe':
      createProbeMetrics(registry); // registers its own leader gauge
      break;
    case 'controlplane':
      createControlPlaneMetrics(registry, () => []);
      memberMetricFamilies(registry, `${DEFAULT_METRIC_PREFIX}push_`); // its Push clusters' member side
      makeLeaderGauge(registry);
      break;
  }
  return registry;
}

/** The series names one family exposes: a histogram's `_bucket`/`_sum`/`_count`, a summary's `_sum`/`_count`. */
function seriesNames(name: string, type: string): string[] {
  switch (type) {
    case 'histogram':
      return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    case 'summary':
      return [name, `${name}_sum`, `${name}_count`];
    default:
      return [name];
  }
}

/** Every series name a component exports, mapped to the components that export it. */
export async function exportedSeriesNames(): Promise<Map<string, Set<Component>>> {
  const out = new Map<string, Set<Component>>();
  for (const component of ['agent', 'probe', 'controlplane'] as const) {
    const registry = registryOf(component);
    const families = await registry.getMetricsAsJSON();
    for (const name of families.flatMap((f) => seriesNames(f.name, String(f.type)))) {
      out.set(name, new Set([...(out.get(name) ?? []), component]));
    }
    registry.clear();
  }
  return out;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names in a PromQL expression: identifiers that are not functions, aggregation
 * operators, keywords, label names or durations. Strings, label matchers, grouping clauses and
 * range selectors are removed first.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\boffset\s+\S+/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const name = m[1] ?? '';
    if (m[2] !== undefined) continue; // a function or an aggregation: sum(, rate(…
    if (KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names].sort();
}
