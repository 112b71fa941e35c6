/**
 * Calls per second of Karmada's own FlinkDeployment customization, run unchanged on the object of
 * its test data:
 *
 *   node lib/interpreter/bench/interpret.bench.ts [--seconds=2]
 *
 * One line per operation: InterpretHealth, GetReplicas (which calls kube.getResourceQuantity) and
 * AggregateStatus over three members' status items, each through the registry and the reused VM,
 * with the JSON ↔ Lua conversions included; then a script that returns at once on the same
 * object (the cost of the call and the conversions alone), and the same health call on an
 * interpreter made for it (its two VMs, the compile and the call: what reuse saves).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AggregatedStatusItem } from '@kf/api';
import { createResourceInterpreter, type KubeObject, type ResourceInterpreter } from '@kf/interpreter';
import { loadThirdPartyKind, thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const seconds = Number(values.seconds);

const root = await thirdPartyCustomizationsFolder();
const flink = await loadThirdPartyKind(root, 'flink.apache.org/v1beta1/FlinkDeployment');
const aggregateCases = flink.cases.filter(
  (c) => c.operation === 'AggregateStatus' && Array.isArray(c.statusItems),
);
const withItems = aggregateCases.find((c) => (c.statusItems?.length ?? 0) > 1);
if (withItems?.desiredObj === undefined)
  throw new Error('no AggregateStatus case with status items for FlinkDeployment');
const items = withItems.statusItems as unknown as AggregatedStatusItem[];
/** The largest status a member reports in the test data: a running job with its reconciled specs. */
const largestStatus = aggregateCases
  .flatMap((c) => (c.statusItems ?? []) as unknown as AggregatedStatusItem[])
  .map((item) => item.status ?? {})
  .reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a), {});
const deployment: KubeObject = { ...withItems.desiredObj, status: largestStatus };
const threeItems = [
  ...items,
  { ...items[0], clusterName: 'member3', status: largestStatus } as AggregatedStatusItem,
];

/** Calls `fn` for about `seconds` (after a warm-up) and returns calls per second. */
function rate(fn: () => unknown): { perSecond: number; microseconds: number } {
  for (let i = 0; i < 500; i++) fn();
  let calls = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 100; i++) fn();
    calls += 100;
  }
  const elapsed = performance.now() - started;
  return { perSecond: (calls / elapsed) * 1000, microseconds: (elapsed * 1000) / calls };
}

function report(name: string, fn: () => unknown): void {
  const { perSecond, microseconds } = rate(fn);
  process.stdout.write(
    `${name.padEnd(34)} ${Math.round(perSecond).toLocaleString('en-US').padStart(8)} calls/s  ${microseconds.toFixed(1).padStart(7)} µs/call\n`,
  );
}

const interpreter: ResourceInterpreter = await createResourceInterpreter(flink.customizations);
const objectBytes = JSON.stringify(deployment).length;
process.stdout.write(
  `FlinkDeployment object: ${objectBytes} bytes of JSON; ${threeItems.length} status items\n`,
);

report('InterpretHealth', () => interpreter.interpretHealth(deployment));
report('GetReplicas', () => interpreter.getReplicas(deployment));
report('AggregateStatus (3 members)', () =>
  interpreter.aggregateStatus(withItems.desiredObj ?? {}, threeItems),
);
process.stdout.write(`VM reuse: ${JSON.stringify(interpreter.stats)}\n`);
interpreter.close();

const bare = await createResourceInterpreter([
  {
    metadata: { name: 'bare' },
    spec: {
      target: { apiVersion: 'flink.apache.org/v1beta1', kind: 'FlinkDeployment' },
      customizations: {
        healthInterpretation: { luaScript: 'function InterpretHealth(obj) return true end' },
      },
    },
  },
]);
report('a script that returns at once', () => bare.interpretHealth(deployment));
bare.close();

const fresh: number[] = [];
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  const once = await createResourceInterpreter(flink.customizations);
  once.interpretHealth(deployment);
  once.close();
  fresh.push(performance.now() - started);
}
fresh.sort((a, b) => a - b);
const median = fresh[Math.floor(fresh.length / 2)] ?? 0;
process.stdout.write(
  `InterpretHealth, new interpreter each ${Math.round(1000 / median)
    .toLocaleString('en-US')
    .padStart(6)} calls/s  ${(median * 1000).toFixed(0).padStart(7)} µs/call (median of 20)\n`,
);
