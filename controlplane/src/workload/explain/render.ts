/** Renders an {@link Explanation} as text: one section per question, aligned tables, times in UTC. */
import { annotations } from '@kf/api';
import type { FailBackDecision } from '../../controllers/fail-back/plan.ts';
import type { Explanation, FailBackReport, FailoverReport, RebalancesReport } from './explain.ts';

/** Columns padded to their widest cell, two spaces apart. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** `2026-01-01T00:00:00Z (in 1m30s)` / `(2m ago)`. */
export function when(atMs: number | undefined, nowMs: number): string {
  if (atMs === undefined) return '-';
  if (!Number.isFinite(atMs)) return 'never';
  const at = new Date(atMs).toISOString().replace(/\.\d+Z$/, 'Z');
  const d = atMs - nowMs;
  return `${at} (${d >= 0 ? `in ${span(d)}` : `${span(-d)} ago`})`;
}

/** `45s`, `1m30s`, `2h5m`. */
export function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${String(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${String(m)}m${s % 60 === 0 ? '' : `${String(s % 60)}s`}`;
  const h = Math.floor(m / 60);
  return `${String(h)}h${m % 60 === 0 ? '' : `${String(m % 60)}m`}`;
}

const dash = (v: string | number | boolean | undefined): string => (v === undefined ? '-' : String(v));

export function renderExplanation(e: Explanation, nowMs: number): string {
  const title = `${e.kind} ${e.namespace === undefined ? '' : `${e.namespace}/`}${e.name}`;
  const lines = [`${title} (${e.resource}, ${String(e.replicas)} replica(s))`];
  if (e.scheduled !== undefined) {
    lines.push(`Scheduled: ${e.scheduled.status} (${e.scheduled.reason}) ${e.scheduled.message}`.trimEnd());
  }
  lines.push('', 'Runs on:');
  if (e.placed.length === 0) lines.push('  (no cluster)');
  else {
    const rows = e.placed.map((p) => [p.cluster, dash(p.replicas), p.health, dash(p.applied)]);
    lines.push(...indent(table(['CLUSTER', 'REPLICAS', 'HEALTH', 'APPLIED'], rows)));
  }
  const others = e.clusters.filter((c) => c.verdict !== 'placed');
  lines.push('', 'Other clusters (scheduler filters now):');
  if (others.length === 0) lines.push('  (none)');
  else {
    const rows = others.map((c) => [c.cluster, c.verdict, dash(c.plugin), c.reason ?? '']);
    lines.push(...indent(table(['CLUSTER', 'VERDICT', 'FILTER', 'REASON'], rows)));
  }
  lines.push('', 'Graceful eviction tasks:');
  if (e.tasks.length === 0) lines.push('  (none)');
  else {
    const rows = e.tasks.map((t) => [
      t.fromCluster,
      t.purgeMode,
      dash(t.replicas),
      t.reason,
      t.producer,
      when(t.createdAtMs, nowMs),
      `${when(t.endsAtMs, nowMs)}: ${t.ends}`,
    ]);
    const header = ['FROM', 'PURGE', 'REPLICAS', 'REASON', 'PRODUCER', 'CREATED', 'ENDS'];
    lines.push(...indent(table(header, rows)));
    for (const t of e.tasks) {
      lines.push(
        `  ${t.fromCluster}: ${t.takeBack.mayReturn ? 'may be placed again' : 'kept out'}: ${t.takeBack.why}`,
      );
      if (t.lastCopyKept)
        lines.push(`  ${t.fromCluster}: past its deadline; its copy is the last one and is kept`);
      if (t.preservedLabelState === undefined) continue;
      const labels = Object.entries(t.preservedLabelState).map(([k, v]) => `${k}=${v}`);
      lines.push(`  preserved from ${t.fromCluster}: ${labels.join(', ')}`);
    }
  }
  lines.push('', 'Eviction history:');
  if (e.history.length === 0) lines.push('  (none)');
  else {
    const rows = e.history.map((h) => [
      h.cluster,
      when(h.evictedAtMs, nowMs),
      h.active ? `blocked until ${when(h.blockedUntilMs, nowMs)}` : 'no longer blocked',
      dash(h.reason),
    ]);
    lines.push(...indent(table(['CLUSTER', 'EVICTED', 'SCHEDULING', 'REASON'], rows)));
  }
  lines.push('', ...failoverSection('Cluster failover', e.clusterFailover));
  lines.push('', ...failoverSection('Application failover', e.applicationFailover));
  lines.push('', ...failBackSection(e.failBack, e, nowMs));
  lines.push('', 'Recent events:');
  if (e.events.length === 0) lines.push('  (none)');
  else {
    const rows = e.events.map((v) => [when(v.atMs, nowMs), v.type, v.reason, String(v.count), v.message]);
    lines.push(...indent(table(['LAST SEEN', 'TYPE', 'REASON', 'COUNT', 'MESSAGE'], rows)));
  }
  lines.push('', ...rebalancesSection(e.rebalances, nowMs));
  return `${lines.join('\n')}\n`;
}

function failoverSection(title: string, f: FailoverReport): string[] {
  const state = f.active ? 'active' : `inactive: ${f.off.join('; ')}`;
  const lines = [`${title}: ${state}`];
  for (const s of f.settings) lines.push(`  ${s}`);
  for (const c of f.clusters) lines.push(`  ${c.cluster}: ${c.verdict}`);
  return lines;
}

function failBackSection(f: FailBackReport, e: Explanation, nowMs: number): string[] {
  const notRunning =
    f.off.length === 0 ? '' : ` (the fail-back controller does not run: ${f.off.join('; ')})`;
  const lines = [`Fail-back: ${failBackSetting(f.setting)}${notRunning}`];
  const r = f.record;
  if (r.kind === 'none') return [...lines, '  no placement record (no cluster failover to undo)'];
  if (r.kind === 'invalid') {
    return [
      ...lines,
      `  placement record unreadable: ${r.problem}`,
      '  record would be dropped: InvalidRecord',
    ];
  }
  lines.push(`  placement before the failover (evicted ${when(r.evictedAtMs, nowMs)}):`);
  const rows = r.clusters.map((c) => [
    c.cluster,
    dash(c.replicas),
    c.steadySinceMs === undefined ? `no: ${c.unsteady ?? ''}` : `since ${when(c.steadySinceMs, nowMs)}`,
  ]);
  lines.push(...indent(indent(table(['CLUSTER', 'REPLICAS', 'STEADY (ESTIMATE)'], rows))));
  const s = f.setting;
  if (s.kind === 'off')
    return [...lines, '  record would be dropped: Disabled (fail-back is off for this binding)'];
  if (s.kind === 'invalid') {
    return [
      ...lines,
      '  record kept until the setting is corrected (a Warning FailBackInvalidSetting each look)',
    ];
  }
  if (f.decision === undefined) return lines;
  // Where it would go back to: the recorded clusters it is not placed on.
  const placed = new Set(e.placed.map((p) => p.cluster));
  const returnTo = r.clusters.map((c) => c.cluster).filter((c) => !placed.has(c));
  return [...lines, ...failBackDecision(f.decision, returnTo, s.windowMs)];
}

function failBackSetting(s: FailBackReport['setting']): string {
  if (s.kind === 'off') return `off (no ${annotations.failBackAfterSeconds} annotation)`;
  if (s.kind === 'invalid') return `invalid setting: ${s.problem}`;
  return `on, window ${String(s.windowMs / 1000)} s`;
}

/** The decision in words; a wait or a move comes with what the estimate leaves out. */
function failBackDecision(d: FailBackDecision, returnTo: readonly string[], windowMs: number): string[] {
  let line: string;
  switch (d.kind) {
    case 'none':
      return ['  nothing: the binding is being deleted'];
    case 'drop':
      return [`  record would be dropped: ${d.reason} (${d.message})`];
    case 'wait':
      line =
        d.reason === 'Stabilizing' && d.recheckInMs !== undefined
          ? `  goes back to ${returnTo.join(', ')} in ~${String(Math.ceil(d.recheckInMs / 1000))} s ` +
            `(window ${String(windowMs / 1000)} s)`
          : `  waits: ${d.message}`;
      break;
    case 'return':
      line =
        `  would go back now: to ${d.returnTo.join(', ')}` +
        (d.leave.length === 0 ? '' : `, leaving ${d.leave.join(', ')} (graceful eviction task each)`);
      break;
  }
  return [
    line,
    "  estimate: steady since each cluster's Ready transition (the running controller restarts a " +
      'window on any unsteady look it saw, and from its own start); fleet guard and in-flight limit ' +
      'not considered',
  ];
}

function rebalancesSection(r: RebalancesReport, nowMs: number): string[] {
  const lines = ['Rebalances:'];
  if (r.unreadable !== undefined) lines.push(`  WorkloadRebalancers could not be read: ${r.unreadable}`);
  else if (r.rebalancers.length === 0) lines.push('  (none)');
  else {
    const rows = r.rebalancers.map((b) => [
      b.rebalancer,
      b.reason === undefined ? b.state : `${b.state} (${b.reason})`,
      when(b.createdAtMs, nowMs),
      when(b.finishedAtMs, nowMs),
      when(b.deletedAtMs, nowMs),
    ]);
    lines.push(...indent(table(['REBALANCER', 'STATE', 'CREATED', 'FINISHED', 'DELETED (TTL)'], rows)));
  }
  const s = r.reschedule;
  if (s !== undefined) {
    const last = `last scheduled ${when(s.lastScheduledAtMs, nowMs)}`;
    const verdict = s.waitingForScheduler ? `waiting for the scheduler (${last})` : last;
    lines.push(`  reschedule requested ${when(s.requestedAtMs, nowMs)}: ${verdict}`);
  }
  return lines;
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => `  ${l}`);
}
