import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { whenAborted } from '@kf/runtime';
import { PushHosts, type PushAccessKey, type PushHostFactory, type PushPart } from './push-hosts.ts';

interface FakeConnection {
  readonly id: number;
  readonly fingerprint: string;
  closed: boolean;
}

/** A factory that records what it was asked to do; parts run until stopped. */
function recorder() {
  const log: string[] = [];
  let next = 0;
  const factory: PushHostFactory<FakeConnection> = {
    open(cluster, access) {
      next++;
      log.push(`open ${cluster} #${String(next)} ${access.fingerprint}`);
      return { id: next, fingerprint: access.fingerprint, closed: false };
    },
    async run(cluster, c, part, signal) {
      log.push(`run ${cluster} ${part} on #${String(c.id)}`);
      await whenAborted(signal);
      log.push(`stop ${cluster} ${part} on #${String(c.id)}`);
    },
    close(cluster, c) {
      c.closed = true;
      log.push(`close ${cluster} #${String(c.id)}`);
      return Promise.resolve();
    },
  };
  return { log, hosts: new PushHosts(factory, pino({ level: 'silent' })) };
}

const access = (fingerprint: string): PushAccessKey => ({ fingerprint, kubeConfig: {} as KubeConfig });

describe('PushHosts', () => {
  it('runs every part of a cluster on one connection, and closes it with the last part', async () => {
    const { log, hosts } = recorder();
    for (const part of ['cluster-status', 'execution', 'work-status'] as const) {
      await hosts.ensure('m1', part, access('a'));
    }
    expect(hosts.running('m1')).toEqual(['cluster-status', 'execution', 'work-status']);
    expect(log.filter((l) => l.startsWith('open'))).toEqual(['open m1 #1 a']);
    await hosts.release('m1', 'execution');
    await hosts.release('m1', 'cluster-status');
    expect(hosts.connected('m1')).toBe(true);
    await hosts.release('m1', 'work-status');
    expect(hosts.connected('m1')).toBe(false);
    expect(hosts.clusters()).toEqual([]);
    expect(log.at(-1)).toBe('close m1 #1');
  });

  it('does nothing when a part already runs over the same access', async () => {
    const { log, hosts } = recorder();
    await hosts.ensure('m1', 'execution', access('a'));
    await hosts.ensure('m1', 'execution', access('a'));
    expect(log).toEqual(['open m1 #1 a', 'run m1 execution on #1']);
  });

  it('moves every part to a new connection when the access changes, stopping them on the old first', async () => {
    const { log, hosts } = recorder();
    await hosts.ensure('m1', 'cluster-status', access('a'));
    await hosts.ensure('m1', 'execution', access('a'));
    log.length = 0;
    await hosts.ensure('m1', 'execution', access('b'));
    expect(log).toEqual([
      'stop m1 cluster-status on #1',
      'stop m1 execution on #1',
      'close m1 #1',
      'open m1 #2 b',
      'run m1 cluster-status on #2',
      'run m1 execution on #2',
    ]);
    // The other part's supervisor then asks with the new access: nothing to do.
    await hosts.ensure('m1', 'cluster-status', access('b'));
    expect(log).toHaveLength(6);
  });

  it('keeps clusters apart', async () => {
    const { hosts } = recorder();
    await hosts.ensure('m1', 'execution', access('a'));
    await hosts.ensure('m2', 'work-status', access('a'));
    await hosts.release('m1', 'execution');
    expect(hosts.clusters()).toEqual(['m2']);
    expect(hosts.running('m2')).toEqual(['work-status']);
  });

  it('serialises calls for one cluster: concurrent ensures open one connection', async () => {
    const { log, hosts } = recorder();
    const parts: PushPart[] = ['cluster-status', 'execution', 'work-status'];
    await Promise.all(parts.map((p) => hosts.ensure('m1', p, access('a'))));
    expect(log.filter((l) => l.startsWith('open'))).toHaveLength(1);
    await Promise.all([hosts.release('m1', 'execution'), hosts.ensure('m1', 'execution', access('a'))]);
    expect(hosts.running('m1')).toEqual(parts);
  });

  it('releasing a part that does not run changes nothing', async () => {
    const { log, hosts } = recorder();
    await hosts.release('m1', 'execution');
    expect(log).toEqual([]);
    expect(hosts.connected('m1')).toBe(false);
  });

  it('a part that fails is logged and counted as stopped when released', async () => {
    const log: string[] = [];
    const hosts = new PushHosts<number>(
      {
        open: () => 1,
        run: () => Promise.reject(new Error('boom')),
        close: () => {
          log.push('close');
          return Promise.resolve();
        },
      },
      pino({ level: 'silent' }),
    );
    await hosts.ensure('m1', 'execution', access('a'));
    await hosts.release('m1', 'execution');
    expect(log).toEqual(['close']);
  });
});
