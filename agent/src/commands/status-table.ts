/** `agent status`: a Cluster's conditions, taints and remedy actions as aligned text tables. */
import { parseTime, type Cluster } from '@kf/api';

/** `45s`, `3m`, `2h`, `5d`: kubectl's short ages. */
export function shortAge(fromMs: number | undefined, nowMs: number): string {
  if (fromMs === undefined) return '<unknown>';
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** Left-aligned columns separated by three spaces, as kubectl prints them. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export function formatClusterStatus(cluster: Cluster, nowMs: number): string {
  const conditions = cluster.status?.conditions ?? [];
  const taints = cluster.spec.taints ?? [];
  const remedies = cluster.status?.remedyActions ?? [];
  const parts = [
    `Cluster: ${cluster.metadata.name ?? ''}   Mode: ${cluster.spec.syncMode}   Version: ${cluster.status?.kubernetesVersion ?? '<none>'}`,
    '',
    'Conditions:',
    conditions.length === 0
      ? '  <none>'
      : indent(
          table(
            ['TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'],
            conditions.map((c) => [
              c.type,
              c.status,
              c.reason ?? '',
              shortAge(parseTime(c.lastTransitionTime), nowMs),
              c.message ?? '',
            ]),
          ),
        ),
    '',
    'Taints:',
    taints.length === 0
      ? '  <none>'
      : indent(
          table(
            ['KEY', 'VALUE', 'EFFECT', 'AGE'],
            taints.map((t) => [
              t.key,
              t.value ?? '',
              t.effect,
              t.timeAdded === undefined ? '' : shortAge(parseTime(t.timeAdded), nowMs),
            ]),
          ),
        ),
    '',
    'Remedy actions:',
    remedies.length === 0 ? '  <none>' : remedies.map((r) => `  ${r}`).join('\n'),
  ];
  return `${parts.join('\n')}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
