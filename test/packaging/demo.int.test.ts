/**
 * The demo (`bash scripts/demo.sh`), start to finish: the federation (member1 and member2 in Push
 * mode, member3 with its agent), DNS probes, the control plane and Prometheus; the cluster failover
 * of `nginx` (member1, a Push member, lost: Ready=False ClusterNotReachable) and a DNS outage remedied by
 * TrafficControl, as its timeline tells them; every Grafana dashboard query answered with data by
 * the real Prometheus that scraped the demo.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runDemo, type DemoReport } from '@kf/testing';

let report: DemoReport;
const printed: string[] = [];

beforeAll(async () => {
  report = await runDemo({
    keep: false,
    print: (line) => {
      printed.push(line);
    },
  });
}, 900_000);

/** Index of the first timeline step matching `pattern`, failing when there is none. */
function step(pattern: RegExp): number {
  const i = report.timeline.findIndex((e) => pattern.test(e.what));
  expect(i, `no timeline step matches ${String(pattern)}:\n${printed.join('\n')}`).toBeGreaterThanOrEqual(0);
  return i;
}

describe('the demo', () => {
  it('prints every step with the time since the start and since the step before', () => {
    const steps = printed.filter((l) => l.startsWith('[+'));
    expect(steps.length).toBe(report.timeline.length);
    for (const line of steps) expect(line).toMatch(/^\[\+\s*\d+\.\ds \|\s*\d+\.\ds\] \S/);
    const times = report.timeline.map((e) => e.atMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("shows member1's replica moving to member2, and back once member1 has been steady for the window", () => {
    const order = [
      step(/scheduled: member1:1, member2:2/),
      step(/Available on the members: member1 1\/1, member2 2\/2/),
      step(/^member1 lost/),
      step(/^member1 Ready=False \(ClusterNotReachable\)/),
      step(/^member1 tainted .*NoExecute/),
      step(/rescheduled: member2:3/),
      step(/Available on member2: 3\/3/),
      step(/^member1 back/),
      step(/^member1 Ready=True/),
      step(/old copy removed/),
      step(/^fail-back: .* back to member1:1, member2:2/),
      step(/Available on the members again: member1 1\/1, member2 2\/2/),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('shows TrafficControl applied while member3 has no DNS, and cleared when DNS returns', () => {
    const order = [
      step(/Service nginx runs on member1, member2, member3; no cluster blocked/),
      step(/^member3's DNS server stopped/),
      step(/^member3 ServiceDomainNameResolutionReady=False/),
      step(/^member3 remedyActions: \[TrafficControl\]/),
      step(/^TrafficControl applied: .*trafficBlockClusters \[member3\]/),
      step(/^member3's DNS server running again/),
      step(/^member3 ServiceDomainNameResolutionReady=True/),
      step(/^member3 remedyActions cleared/),
      step(/^TrafficControl cleared/),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('gets data from Prometheus for every dashboard query', () => {
    expect(report.dashboards.length).toBeGreaterThan(30);
    const noData = report.dashboards
      .filter((q) => q.series === 0)
      .map((q) => `${q.file} ${q.where}: ${q.error ?? 'no data'}`);
    expect(noData).toEqual([]);
  });

  it('tears everything down', () => {
    expect(report.timeline.at(-1)?.what).toBe('all processes stopped');
  });
});
