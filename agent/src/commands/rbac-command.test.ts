import { describe, expect, it } from 'vitest';
import { ConfigError } from '@kf/runtime';
import { buildRbacCommand, type RbacConfig } from './rbac-command.ts';

async function parse(...args: string[]): Promise<RbacConfig[]> {
  const calls: RbacConfig[] = [];
  const cmd = buildRbacCommand((c) => calls.push(c))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await cmd.parseAsync(args, { from: 'user' });
  return calls;
}

describe('agent rbac', () => {
  it('passes the cluster name on', async () => {
    expect(await parse('--cluster-name=member1')).toEqual([{ clusterName: 'member1', karmadaAgent: false }]);
  });

  it("says when the member runs Karmada's karmada-agent", async () => {
    expect(await parse('--cluster-name=member1', '--karmada-agent')).toEqual([
      { clusterName: 'member1', karmadaAgent: true },
    ]);
  });

  it.each([
    ['an upper-case name', 'Member1', /--cluster-name must be a DNS label/],
    ['a name too long for karmada-es-<cluster>', 'x'.repeat(49), /at most 48 characters/],
  ])('refuses %s before printing anything', async (_name, cluster, message) => {
    const err = await parse(`--cluster-name=${cluster}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(message);
  });

  it('requires --cluster-name', async () => {
    await expect(parse()).rejects.toThrow(/--cluster-name <name>' not specified/);
  });
});
