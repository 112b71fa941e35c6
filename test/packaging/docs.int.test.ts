/**
 * docs/ stays true to the code: the flags reference of operations.md is what each program's
 * --help prints today, every alert has its entry in the operations guide, and the architecture
 * has its picture.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadYaml } from '@kubernetes/client-node';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFile(join(root, path), 'utf8');

describe('docs/operations.md', () => {
  it(
    'has the flags reference every --help prints now (node scripts/gen-flags-doc.ts)',
    // Ten Node starts, each loading a program's sources: on two cores shared with the other
    // integration tests a minute was not always enough.
    { timeout: 180_000 },
    async () => {
      const check = run(process.execPath, ['scripts/gen-flags-doc.ts', '--check'], { cwd: root });
      await expect(check).resolves.toBeDefined();
      const doc = await read('docs/operations.md');
      // The section is really there, with each program's flags.
      for (const flag of [
        '--cluster-status-update-frequency',
        '--lookup-names',
        '--fleet-guard-pause-threshold',
      ]) {
        expect(doc).toContain(flag);
      }
    },
  );

  it('says what to do for every alert', async () => {
    const rules = loadYaml<{ groups: { rules: { alert?: string }[] }[] }>(
      await read('deploy/prometheus/karmada-failover.rules.yaml'),
    );
    const alerts = rules.groups.flatMap((g) =>
      g.rules.flatMap((r) => (r.alert === undefined ? [] : [r.alert])),
    );
    expect(alerts.length).toBeGreaterThan(5);
    const doc = await read('docs/operations.md');
    for (const a of alerts) expect(doc, a).toContain(`| \`${a}\``);
  });
});

describe('docs/architecture.md and docs/comparison.md', () => {
  it('exist, the architecture with its diagram', async () => {
    expect(await read('docs/architecture.md')).toMatch(/```mermaid\n(flowchart|graph) /);
    expect(await read('docs/comparison.md')).toContain('fleet guard');
  });
});
