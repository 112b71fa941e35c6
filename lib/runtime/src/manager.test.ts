import { describe, expect, it } from 'vitest';
import { ShutdownTimeoutError } from './errors.ts';
import { createLogger } from './logger.ts';
import { Manager, type Leadership, type Runnable } from './manager.ts';
import { ManualClock } from './manual-clock.ts';

const log = createLogger({ component: 'test', level: 'silent' });
const poll = { timeout: 5_000, interval: 5 };

/** A runnable that records its lifecycle into `events` and stops when told. */
function recorder(name: string, events: string[], extra: Partial<Runnable> = {}): Runnable {
  return {
    name,
    ...extra,
    start: async (signal) => {
      events.push(`start ${name}`);
      await new Promise<void>((resolve) => {
        signal.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
      });
      await new Promise((resolve) => setImmediate(resolve)); // some cleanup work
      events.push(`stop ${name}`);
    },
  };
}

/** Leader election double: the test grants and revokes leadership. */
class FakeLeadership implements Leadership {
  readonly events: string[];
  #lead: ((term: AbortSignal) => Promise<void>) | undefined;
  #term: AbortController | undefined;
  #work: Promise<void> = Promise.resolve();

  constructor(events: string[]) {
    this.events = events;
  }

  run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void> {
    this.#lead = lead;
    return new Promise((resolve) => {
      signal.addEventListener(
        'abort',
        () => {
          this.#term?.abort();
          void this.#work.then(() => {
            this.events.push('lease released');
            resolve();
          });
        },
        { once: true },
      );
    });
  }

  acquire(): void {
    if (this.#lead === undefined) throw new Error('run() was not called');
    this.#term = new AbortController();
    this.#work = this.#lead(this.#term.signal);
  }

  async lose(): Promise<void> {
    this.#term?.abort();
    await this.#work;
  }
}

describe('Manager', () => {
  it('starts other runnables at once and leader runnables only while leading', async () => {
    const events: string[] = [];
    const leadership = new FakeLeadership(events);
    const m = new Manager({ log, leadership });
    m.add(recorder('server', events));
    m.add(recorder('controller', events, { needLeaderElection: true }));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await expect.poll(() => events, poll).toEqual(['start server']);
    expect(m.isLeader()).toBe(false);
    leadership.acquire();
    await expect.poll(() => events, poll).toContain('start controller');
    expect(m.isLeader()).toBe(true);
    stop.abort();
    await running;
    expect(events).toEqual([
      'start server',
      'start controller',
      'stop controller',
      'lease released',
      'stop server',
    ]);
  });

  it('stops leader work when leadership is lost and starts it again when regained', async () => {
    const events: string[] = [];
    const leadership = new FakeLeadership(events);
    const m = new Manager({ log, leadership });
    m.add(recorder('server', events));
    m.add(recorder('controller', events, { needLeaderElection: true }));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    leadership.acquire();
    await expect.poll(() => events, poll).toContain('start controller');
    await leadership.lose();
    expect(m.isLeader()).toBe(false);
    expect(events).toEqual(['start server', 'start controller', 'stop controller']);
    leadership.acquire();
    await expect.poll(() => events.filter((e) => e === 'start controller').length, poll).toBe(2);
    stop.abort();
    await running;
    expect(events.at(-1)).toBe('stop server');
  });

  it('runs leader runnables unconditionally without leader election, and stops them first', async () => {
    const events: string[] = [];
    const m = new Manager({ log });
    m.add(recorder('server', events));
    m.add(recorder('controller', events, { needLeaderElection: true }));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await expect.poll(() => [...events].sort(), poll).toEqual(['start controller', 'start server']);
    stop.abort();
    await running;
    expect(events.slice(2)).toEqual(['stop controller', 'stop server']);
  });

  it('shuts everything down and rejects with the error when a runnable fails', async () => {
    const events: string[] = [];
    const m = new Manager({ log });
    m.add(recorder('server', events));
    m.add(recorder('controller', events, { needLeaderElection: true }));
    m.add({ name: 'broken', start: () => Promise.reject(new Error('cannot watch')) });
    await expect(m.start(new AbortController().signal)).rejects.toThrow('cannot watch');
    expect(events).toContain('stop server');
    expect(events).toContain('stop controller');
  });

  it('treats a leader election failure as fatal', async () => {
    const events: string[] = [];
    const m = new Manager({ log, leadership: { run: () => Promise.reject(new Error('no lease RBAC')) } });
    m.add(recorder('server', events));
    m.add(recorder('controller', events, { needLeaderElection: true }));
    await expect(m.start(new AbortController().signal)).rejects.toThrow('no lease RBAC');
    expect(events).toEqual(['start server', 'stop server']);
  });

  it('lets a runnable finish early and ignores abort errors while stopping', async () => {
    const m = new Manager({ log });
    m.add({ name: 'one-shot', start: () => Promise.resolve() });
    m.add({
      name: 'sleeper',
      start: (signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            reject(signal.reason as Error);
          });
        }),
    });
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    await expect(running).resolves.toBeUndefined();
  });

  it('rejects with ShutdownTimeoutError naming what outlived the deadline', async () => {
    const clock = new ManualClock();
    const m = new Manager({ log, clock, shutdownTimeoutMs: 5_000 });
    m.add({ name: 'stubborn', start: () => new Promise(() => undefined) });
    m.add({
      name: 'polite',
      start: (signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            resolve();
          });
        }),
    });
    const stop = new AbortController();
    const running = m.start(stop.signal);
    const outcome = running.then(
      () => undefined,
      (err: unknown) => err,
    );
    stop.abort();
    await expect.poll(() => clock.pendingSleeps(), poll).toBe(1);
    await clock.advance(5_000);
    const err = await outcome;
    expect(err).toBeInstanceOf(ShutdownTimeoutError);
    expect((err as ShutdownTimeoutError).pending).toEqual(['stubborn']);
  });

  it('clears its deadline timer after a clean shutdown', async () => {
    const clock = new ManualClock();
    const m = new Manager({ log, clock });
    m.add(recorder('server', []));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    stop.abort();
    await running;
    expect(clock.pendingSleeps()).toBe(0);
  });

  it('refuses duplicate names, late adds and a second start', async () => {
    const m = new Manager({ log });
    m.add(recorder('a', []));
    expect(() => {
      m.add(recorder('a', []));
    }).toThrow(/already added/);
    const stop = new AbortController();
    stop.abort();
    await m.start(stop.signal);
    expect(() => {
      m.add(recorder('b', []));
    }).toThrow(/before the manager starts/);
    await expect(m.start(stop.signal)).rejects.toThrow(/already started/);
  });

  it('collects health and readiness checks', async () => {
    const m = new Manager({ log });
    m.addHealthzCheck('ping', () => undefined);
    m.addReadyzCheck('synced', () => {
      throw new Error('not yet');
    });
    expect(m.healthz.names()).toEqual(['ping']);
    expect(await m.readyz.run()).toMatchObject([{ name: 'synced', ok: false }]);
    expect(() => {
      m.addReadyzCheck('synced', () => undefined);
    }).toThrow(/already registered/);
  });
});
