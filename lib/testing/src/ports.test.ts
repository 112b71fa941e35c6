import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort, serverPortRange } from './ports.ts';

describe('ephemeralRange', () => {
  it('reads the kernel range', () => {
    expect(ephemeralRange(() => '32768\t60999\n')).toEqual({ from: 32768, to: 60999 });
  });

  it("falls back to Linux's defaults when the file is unreadable or garbled", () => {
    expect(
      ephemeralRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual({ from: 32768, to: 60999 });
    expect(ephemeralRange(() => 'x y')).toEqual({ from: 32768, to: 60999 });
  });
});

describe('serverPortRange', () => {
  it('ends just below the ephemeral range', () => {
    expect(serverPortRange({ from: 32768, to: 60999 })).toEqual({ from: 10_000, to: 32767 });
  });

  it('is none when the ephemeral range starts too low to leave room', () => {
    expect(serverPortRange({ from: 10_500, to: 60999 })).toBeUndefined();
  });
});

async function listening(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => {
      resolve(undefined);
    });
    server.listen(port, '127.0.0.1', () => {
      resolve(server);
    });
  });
}

const closed = (server: Server): Promise<unknown> => new Promise((r) => server.close(r));

/** A listening server on a port `busy` such that `busy + 1` was free when checked. */
async function busyPortBeforeAFreeOne(): Promise<{ server: Server; busy: number }> {
  for (;;) {
    const server = await listening(0);
    if (server === undefined) continue;
    const address = server.address();
    const busy = typeof address === 'object' && address !== null ? address.port : 0;
    const next = await listening(busy + 1);
    if (next !== undefined) {
      await closed(next);
      return { server, busy };
    }
    await closed(server);
  }
}

describe('freePort', () => {
  it('gives a bindable port below the ephemeral range', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(ephemeralRange().from);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.on('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((r) => server.close(r));
  });

  it('skips a port that is in use', async () => {
    // A port bound by someone else (not handed out by freePort), whose next port is free: on a
    // machine where other tests bind loopback ports, the port after an ephemeral one may be taken.
    const { server, busy } = await busyPortBeforeAFreeOne();
    try {
      // The first pick is the busy port, the second a free one.
      const picks = [busy, busy + 1];
      let i = 0;
      const range = { from: busy, to: busy + 1 };
      const port = await freePort(range, () => (picks[i++] === busy ? 0 : 0.99));
      expect(port).toBe(busy + 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('never hands out a port fetch refuses to connect to', async () => {
    // 10080 is on the Fetch standard's list of blocked ports: a probe of a server there fails
    // before connecting, whatever the server does.
    await expect(fetch('http://127.0.0.1:10080/')).rejects.toMatchObject({ cause: { message: 'bad port' } });
    // Every pick lands on 10080: the port must come from elsewhere.
    const port = await freePort({ from: 10_080, to: 10_080 }, () => 0);
    expect(port).not.toBe(10_080);
  });

  it('never hands out one port twice in a process, even to concurrent callers', async () => {
    const first = await freePort();
    // A range holding only that port: every pick lands on it, so a second port must come elsewhere.
    const again = await freePort({ from: first, to: first }, () => 0);
    expect(again).not.toBe(first);
    const together = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set([first, again, ...together]).size).toBe(22);
  });
});
