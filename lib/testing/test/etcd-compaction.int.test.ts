/**
 * Expired watches on a real kube-apiserver: what etcd compaction alone does to a watch (nothing,
 * while the watch cache serves it) and what expireWatches() does (the watch breaks and resuming it
 * from its resourceVersion gets ERROR 410 Expired).
 */
import { readFile } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCluster, eventually, newRunDir } from '../src/index.ts';

let cluster: LocalCluster;
let tls: { ca: Buffer; cert: Buffer; key: Buffer };

beforeAll(async () => {
  cluster = await LocalCluster.create({
    name: 'compaction',
    role: 'control-plane',
    dir: await newRunDir('compaction'),
  });
  const files = cluster.adminTls;
  const [ca, cert, key] = await Promise.all([
    readFile(files.caFile),
    readFile(files.certFile),
    readFile(files.keyFile),
  ]);
  tls = { ca, cert, key };
});

afterAll(async () => {
  await (cluster as LocalCluster | undefined)?.destroy();
});

interface WatchEvent {
  readonly type: string;
  readonly object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; reason?: string };
}

/** A raw watch: its events as they come, and whether the stream has ended. */
interface OpenWatch {
  readonly events: WatchEvent[];
  ended: boolean;
  readonly req: ClientRequest;
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function openWatch(resourceVersion: string): OpenWatch {
  const w: { events: WatchEvent[]; ended: boolean; req?: ClientRequest } = { events: [], ended: false };
  const req = request(
    `${cluster.server}${CONFIGMAPS}?watch=1&resourceVersion=${resourceVersion}`,
    tls,
    (res) => {
      let buf = '';
      res.on('data', (chunk: Buffer) => {
        buf += chunk.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          w.events.push(JSON.parse(buf.slice(0, i)) as WatchEvent);
          buf = buf.slice(i + 1);
        }
      });
      res.on('close', () => {
        w.ended = true;
      });
    },
  );
  req.on('error', () => {
    w.ended = true;
  });
  req.end();
  w.req = req;
  return w as OpenWatch;
}

async function createConfigMap(name: string): Promise<string> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const created = await new Promise<string>((resolve, reject) => {
    const req = request(
      `${cluster.server}${CONFIGMAPS}`,
      { ...tls, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => {
          resolve(text);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  const rv = (JSON.parse(created) as WatchEvent['object']).metadata?.resourceVersion;
  if (rv === undefined) throw new Error(`create ${name}: ${created}`);
  return rv;
}

const names = (w: OpenWatch): string[] => w.events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);

describe('etcd compaction and expired watches', () => {
  it('compaction alone leaves an open watch running: the watch cache serves it', async () => {
    const rv = await createConfigMap('before-compaction');
    const watch = openWatch(rv);
    try {
      const compacted = await cluster.compactEtcd();
      expect(compacted).toBeGreaterThan(Number(rv));
      // etcd itself no longer has the revision the watch started from...
      const old = await fetch(`${cluster.etcdUrl}/v3/kv/range`, {
        method: 'POST',
        body: JSON.stringify({ key: Buffer.from('/registry/').toString('base64'), revision: rv }),
      });
      expect(await old.text()).toContain('required revision has been compacted');
      // ...but the API server's watch cache keeps the watch going.
      await createConfigMap('after-compaction');
      await eventually('the open watch sees the next event', () =>
        Promise.resolve(names(watch).includes('ADDED after-compaction')),
      );
      expect(watch.ended).toBe(false);
    } finally {
      watch.req.destroy();
    }
  });

  it('expireWatches ends open watches, and resuming one from its resourceVersion gets 410 Expired', async () => {
    const rv = await createConfigMap('watched');
    const watch = openWatch(rv);
    try {
      await createConfigMap('seen');
      await eventually('the watch sees an event', () => Promise.resolve(names(watch).includes('ADDED seen')));
      const lastSeen = watch.events.at(-1)?.object.metadata?.resourceVersion ?? '';

      const compacted = await cluster.expireWatches();
      expect(compacted).toBeGreaterThan(Number(lastSeen));
      await eventually('the open watch ended', () => Promise.resolve(watch.ended), 10_000);

      const resumed = openWatch(lastSeen);
      await eventually('the resumed watch answered', () => Promise.resolve(resumed.ended), 10_000);
      expect(resumed.events).toHaveLength(1);
      expect(resumed.events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    } finally {
      watch.req.destroy();
    }
  });
});
