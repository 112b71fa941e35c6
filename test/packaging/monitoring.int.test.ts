/**
 * The alert rules and dashboards in deploy/ against the code: promtool accepts the rules and
 * their unit tests pass, every query parses, and every metric a query names is one the agent,
 * the probe or the control plane really exports.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpYaml, loadYaml } from '@kubernetes/client-node';
import { loadDashboards, queriesOf, withGrafanaVariables } from '@kf/testing';
import { exportedSeriesNames, metricNamesIn, type Component } from './metric-catalog.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const prometheusDir = join(root, 'deploy/prometheus');
const grafanaDir = join(root, 'deploy/grafana');

/** Runs promtool; a failure rejects with its output, so the assertion shows why. */
async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: prometheusDir });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`, {
      cause: error,
    });
  }
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

/** Every rule of every rule file, with the file it is in. */
async function allRules(): Promise<{ file: string; rule: Rule }[]> {
  const out: { file: string; rule: Rule }[] = [];
  for (const file of await ruleFiles()) {
    const parsed = loadYaml<RuleFile>(await readFile(join(prometheusDir, file), 'utf8'));
    out.push(...parsed.groups.flatMap((g) => g.rules.map((rule) => ({ file, rule }))));
  }
  return out;
}

const ruleFiles = async (): Promise<string[]> =>
  (await readdir(prometheusDir)).filter((f) => f.endsWith('.rules.yaml'));

const dashboards = (): ReturnType<typeof loadDashboards> => loadDashboards(grafanaDir);

let exported: Map<string, Set<Component>>;
let scratch: string;
beforeAll(async () => {
  exported = await exportedSeriesNames();
  scratch = await mkdtemp(join(tmpdir(), 'kf-monitoring-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The metric names of `expr` that no process exports. */
const unknownNames = (expr: string): string[] => metricNamesIn(expr).filter((n) => !exported.has(n));

describe('metric catalog', () => {
  it('lists the families of all three processes, histogram series included', () => {
    expect([...(exported.get('karmada_failover_build_info') ?? [])].sort()).toEqual([
      'agent',
      'controlplane',
      'probe',
    ]);
    // Upstream's cluster families: the agent's own cluster, and the control plane's Push clusters.
    expect(exported.get('cluster_ready_state')).toEqual(new Set(['agent', 'controlplane']));
    expect(exported.get('karmada_failover_push_work_applies_total')).toEqual(new Set(['controlplane']));
    expect(exported.get('karmada_failover_probe_lookup_duration_seconds_bucket')).toEqual(new Set(['probe']));
    expect(exported.get('karmada_failover_evictions_total')).toEqual(new Set(['controlplane']));
    expect(exported.get('karmada_failover_watch_backoff_seconds')).toEqual(
      new Set(['agent', 'probe', 'controlplane']),
    );
    expect(exported.has('karmada_failover_probe_lookup_duration_seconds')).toBe(false);
  });

  it('finds metric names in PromQL and nothing else', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (le, controller) (rate(a_b_bucket{controller=~"x|y", le!="1"}[5m]))) ' +
          '> 0 and on (instance) group_left (component) c:d offset 5m unless sum without (x) (e) > 1e3',
      ),
    ).toEqual(['a_b_bucket', 'c:d', 'e']);
    expect(
      unknownNames('sum(rate(karmada_failover_evictions_total[5m])) / karmada_failover_not_a_metric'),
    ).toEqual(['karmada_failover_not_a_metric']);
  });
});

describe('alert rules', () => {
  it('pass promtool check rules', async () => {
    const files = await ruleFiles();
    expect(files.length).toBeGreaterThan(0);
    const out = await promtool('check', 'rules', ...files);
    expect(out).toContain('SUCCESS');
  });

  it('pass their promtool unit tests', async () => {
    const tests = (await readdir(prometheusDir)).filter((f) => f.endsWith('.rules.test.yaml'));
    expect(tests.length).toBeGreaterThan(0);
    const out = await promtool('test', 'rules', ...tests);
    expect(out).toContain('SUCCESS');
  });

  it('cover the failures operators must hear about', async () => {
    const alerts = new Set((await allRules()).map((r) => r.rule.alert));
    for (const a of [
      'KarmadaFailoverClusterNotReady',
      'KarmadaFailoverClusterLeaseStale',
      'KarmadaFailoverDNSResolutionFailing',
      'KarmadaFailoverEvictionsPaused',
      'KarmadaFailoverFailoverStuck',
      'KarmadaFailoverAgentDown',
    ]) {
      expect(alerts).toContain(a);
    }
  });

  it('use only metrics the code exports', async () => {
    const problems = (await allRules())
      .map(({ file, rule }) => ({
        where: `${file} ${rule.alert ?? rule.record ?? '?'}`,
        unknown: unknownNames(rule.expr),
      }))
      .filter((p) => p.unknown.length > 0)
      .map((p) => `${p.where}: ${p.unknown.join(', ')}`);
    expect(problems).toEqual([]);
  });
});

describe('dashboards', () => {
  it('exist for the fleet, failover activity and member health', async () => {
    const titles = (await dashboards()).map((d) => d.file).sort();
    expect(titles).toEqual(['failover-activity.json', 'fleet-overview.json', 'member-health.json']);
  });

  it('use only metrics the code exports', async () => {
    const queries = (await dashboards()).flatMap(({ file, dashboard }) =>
      queriesOf(file, dashboard).map((q) => ({ where: `${file} ${q.where}`, expr: q.expr })),
    );
    const problems = queries
      .map((q) => ({ where: q.where, unknown: unknownNames(q.expr), any: metricNamesIn(q.expr).length > 0 }))
      .filter((q) => q.unknown.length > 0 || !q.any)
      .map((q) => `${q.where}: ${q.any ? q.unknown.join(', ') : 'no metric at all'}`);
    expect(problems).toEqual([]);
  });

  it('have queries that parse (promtool, as recording rules)', async () => {
    const groups = (await dashboards()).map(({ file, dashboard }) => ({
      name: file,
      rules: queriesOf(file, dashboard).map((q, i) => ({
        record: `dashboard:${file.replace(/\W/g, '_')}:query_${i}`,
        expr: withGrafanaVariables(q.expr),
      })),
    }));
    const path = join(scratch, 'dashboard-queries.rules.yaml');
    await writeFile(path, dumpYaml({ groups }));
    const out = await promtool('check', 'rules', path);
    expect(out).toContain('SUCCESS');
  });

  it('have unique panel ids and fit Grafana’s 24-column grid', async () => {
    for (const { file, dashboard } of await dashboards()) {
      const ids = dashboard.panels.map((p) => p.id);
      expect(new Set(ids).size, file).toBe(ids.length);
      for (const p of dashboard.panels)
        expect(p.gridPos.x + p.gridPos.w, `${file} ${p.title}`).toBeLessThanOrEqual(24);
      expect(dashboard.uid).toMatch(/^kf-/);
    }
  });
});
