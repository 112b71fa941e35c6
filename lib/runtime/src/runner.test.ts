import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type ObjectEventHandler,
  type ObjectEventType,
  type ObjectSource,
  type Outcome,
  type ReconcileContext,
} from './controller.ts';
import { createControllerMetrics } from './controller-metrics.ts';
import { TerminalError } from './errors.ts';
import { createLogger } from './logger.ts';
import { ManualClock } from './manual-clock.ts';
import { controllerRunnable, runController, type RunnerDeps } from './runner.ts';
import { TurnBudget } from './turn-budget.ts';

interface Obj {
  readonly name: string;
  readonly owner?: string;
}

/** In-memory ObjectSource double: the test decides when it is synced and what changes. */
class MemorySource implements ObjectSource<Obj> {
  readonly objects = new Map<string, Obj>();
  readonly handlers = new Set<ObjectEventHandler<Obj>>();
  #resolveSynced: () => void = () => undefined;
  readonly #synced = new Promise<void>((resolve) => (this.#resolveSynced = resolve));

  constructor(initial: readonly Obj[] = [], synced = true) {
    for (const o of initial) this.objects.set(o.name, o);
    if (synced) this.markSynced();
  }

  markSynced(): void {
    this.#resolveSynced();
  }

  list(): readonly Obj[] {
    return [...this.objects.values()];
  }

  onEvent(handler: ObjectEventHandler<Obj>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  synced(): Promise<void> {
    return this.#synced;
  }

  emit(type: ObjectEventType, obj: Obj): void {
    const old = this.objects.get(obj.name);
    if (type === 'DELETED') this.objects.delete(obj.name);
    else this.objects.set(obj.name, obj);
    for (const h of this.handlers) h(type, obj, type === 'MODIFIED' ? old : undefined);
  }
}

function sink(): { write: (msg: string) => void; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  return {
    write: (msg) => void chunks.push(msg),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

type Reconcile = (key: string, ctx: ReconcileContext) => Promise<Outcome>;

interface Harness {
  readonly calls: string[];
  readonly clock: ManualClock;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  readonly out: ReturnType<typeof sink>;
  readonly registry: Registry;
}

function start(
  sources: ControllerSpec['sources'],
  reconcile: Reconcile = () => Promise.resolve(converged()),
  extra: Partial<ControllerSpec> & { deps?: Partial<RunnerDeps> } = {},
): Harness {
  const calls: string[] = [];
  const clock = new ManualClock();
  const stop = new AbortController();
  const out = sink();
  const registry = new Registry();
  const spec: ControllerSpec = {
    name: 'test-controller',
    sources,
    resyncPeriodMs: 0,
    ...extra,
    reconcile: (key, ctx) => {
      calls.push(key);
      return reconcile(key, ctx);
    },
  };
  const deps: RunnerDeps = {
    log: createLogger({ component: 'test', level: 'debug', destination: out }),
    metrics: createControllerMetrics(registry),
    clock,
    random: () => 0.5,
    backoff: { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0.2 },
    ...extra.deps,
  };
  const done = runController(spec, deps, stop.signal);
  return { calls, clock, stop, done, out, registry };
}

const poll = { timeout: 5_000, interval: 5 };

describe('runController', () => {
  it('waits for every source to sync, then reconciles each known key once', async () => {
    const a = new MemorySource([{ name: 'x' }, { name: 'y' }], false);
    const b = new MemorySource([{ name: 'z', owner: 'x' }], false);
    const h = start([keysFrom(a, (o) => [o.name]), keysFrom(b, (o) => [o.owner ?? o.name])]);
    a.emit('ADDED', { name: 'w' }); // before sync: queued, not yet processed
    a.markSynced();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.calls).toEqual([]);
    b.markSynced();
    await expect.poll(() => [...h.calls].sort(), poll).toEqual(['w', 'x', 'y']);
    h.stop.abort();
    await h.done;
    expect(h.calls).toHaveLength(3);
  });

  it('maps events to keys, including the old owner of a modified object', async () => {
    const objs = new MemorySource([{ name: 'p1', owner: 'a' }]);
    const h = start([keysFrom(objs, (o) => (o.owner === undefined ? [] : [o.owner]))]);
    await expect.poll(() => h.calls, poll).toEqual(['a']);
    objs.emit('MODIFIED', { name: 'p1', owner: 'b' });
    await expect.poll(() => [...h.calls].sort(), poll).toEqual(['a', 'a', 'b']);
    objs.emit('DELETED', { name: 'p1', owner: 'b' });
    await expect.poll(() => h.calls.length, poll).toBe(4);
    h.stop.abort();
    await h.done;
    expect(objs.handlers.size).toBe(0); // unsubscribed
  });

  it('reconciles again after the delay a recheck asked for', async () => {
    const h = start([keysFrom(new MemorySource([{ name: 'k' }]), (o) => [o.name])], () =>
      Promise.resolve(recheckIn(5_000)),
    );
    await expect.poll(() => h.calls.length, poll).toBe(1);
    await h.clock.advance(4_999);
    expect(h.calls).toHaveLength(1);
    await h.clock.advance(1);
    await expect.poll(() => h.calls.length, poll).toBe(2);
    h.stop.abort();
    await h.done;
  });

  it('retries a failing key with growing backoff and resets it after success', async () => {
    let failuresLeft = 3;
    const objs = new MemorySource([{ name: 'k' }]);
    const h = start([keysFrom(objs, (o) => [o.name])], () => {
      if (failuresLeft-- > 0) return Promise.reject(new Error('apiserver unavailable'));
      return Promise.resolve(converged());
    });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    for (const [delayMs, callsAfter] of [
      [100, 2],
      [200, 3],
      [400, 4],
    ] as const) {
      await h.clock.advance(delayMs - 1);
      expect(h.calls).toHaveLength(callsAfter - 1);
      await h.clock.advance(1);
      await expect.poll(() => h.calls.length, poll).toBe(callsAfter);
    }
    await h.clock.advance(10_000);
    expect(h.calls).toHaveLength(4);
    const warns = h.out.lines().filter((l) => l['level'] === 'warn');
    expect(warns.map((l) => l['attempt'])).toEqual([1, 2, 3]);
    expect(warns[0]).toMatchObject({
      msg: 'reconcile failed; will retry',
      err: { message: 'apiserver unavailable' },
    });
    failuresLeft = 1; // after a success the next failure starts from the initial delay again
    objs.emit('MODIFIED', { name: 'k' });
    await expect.poll(() => h.calls.length, poll).toBe(5);
    await h.clock.advance(99);
    expect(h.calls).toHaveLength(5);
    await h.clock.advance(1);
    await expect.poll(() => h.calls.length, poll).toBe(6);
    h.stop.abort();
    await h.done;
  });

  it('retries no later than maxRetryDelayMs, however often the key failed', async () => {
    const h = start(
      [keysFrom(new MemorySource([{ name: 'k' }]), (o) => [o.name])],
      () => Promise.reject(new Error('link down')),
      { maxRetryDelayMs: 250 },
    );
    await expect.poll(() => h.calls.length, poll).toBe(1);
    for (const [delayMs, callsAfter] of [
      [100, 2],
      [200, 3],
      [250, 4],
      [250, 5],
    ] as const) {
      await h.clock.advance(delayMs - 1);
      expect(h.calls).toHaveLength(callsAfter - 1);
      await h.clock.advance(1);
      await expect.poll(() => h.calls.length, poll).toBe(callsAfter);
    }
    h.stop.abort();
    await h.done;
  });

  it('does not retry a terminal error and logs it at error', async () => {
    const h = start([keysFrom(new MemorySource([{ name: 'bad' }]), (o) => [o.name])], () =>
      Promise.reject(new TerminalError('spec.placement is invalid')),
    );
    await expect.poll(() => h.calls.length, poll).toBe(1);
    await h.clock.advance(60_000);
    expect(h.calls).toHaveLength(1);
    expect(h.out.lines().filter((l) => l['level'] === 'error')).toMatchObject([
      { controller: 'test-controller', key: 'bad', err: { type: 'TerminalError' } },
    ]);
    h.stop.abort();
    await h.done;
  });

  it('queues every key again at each resync', async () => {
    const h = start(
      [keysFrom(new MemorySource([{ name: 'a' }, { name: 'b' }]), (o) => [o.name])],
      () => Promise.resolve(converged()),
      { resyncPeriodMs: 60_000, deps: { random: () => 0 } },
    );
    await expect.poll(() => h.calls.length, poll).toBe(2);
    await h.clock.advance(59_999);
    expect(h.calls).toHaveLength(2);
    await h.clock.advance(1);
    await expect.poll(() => h.calls.length, poll).toBe(4);
    await h.clock.advance(60_000);
    await expect.poll(() => h.calls.length, poll).toBe(6);
    h.stop.abort();
    await h.done;
  });

  it('resyncs a key a change reconciled one period after that reconcile, not with the others', async () => {
    const objs = new MemorySource([{ name: 'a' }, { name: 'b' }]);
    const h = start([keysFrom(objs, (o) => [o.name])], () => Promise.resolve(converged()), {
      resyncPeriodMs: 60_000,
      deps: { random: () => 0 },
    });
    await expect.poll(() => h.calls.length, poll).toBe(2);
    await h.clock.advance(30_000);
    objs.emit('MODIFIED', { name: 'b', owner: 'changed' });
    await expect.poll(() => h.calls, poll).toEqual(['a', 'b', 'b']);
    await h.clock.advance(30_000); // a's period is over, b was reconciled 30 s ago
    await expect.poll(() => h.calls, poll).toEqual(['a', 'b', 'b', 'a']);
    await h.clock.advance(24_000);
    expect(h.calls).toHaveLength(4);
    await h.clock.advance(6_000); // b's period since its change is over
    await expect.poll(() => h.calls, poll).toEqual(['a', 'b', 'b', 'a', 'b']);
    h.stop.abort();
    await h.done;
  });

  it('resyncs a key added after the start one period after its first reconcile', async () => {
    const objs = new MemorySource([{ name: 'a' }]);
    const h = start([keysFrom(objs, (o) => [o.name])], () => Promise.resolve(converged()), {
      resyncPeriodMs: 10_000,
      deps: { random: () => 0 },
    });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    await h.clock.advance(5_000);
    objs.emit('ADDED', { name: 'n' });
    await expect.poll(() => h.calls, poll).toEqual(['a', 'n']);
    await h.clock.advance(5_000);
    await expect.poll(() => h.calls, poll).toEqual(['a', 'n', 'a']);
    await h.clock.advance(4_000);
    expect(h.calls).toHaveLength(3);
    await h.clock.advance(1_000);
    await expect.poll(() => h.calls, poll).toEqual(['a', 'n', 'a', 'n']);
    objs.emit('DELETED', { name: 'n' });
    await h.clock.advance(20_000);
    await expect.poll(() => h.calls.filter((k) => k === 'n').length, poll).toBe(3); // the deletion
    expect(h.calls.filter((k) => k === 'n')).toHaveLength(3);
    h.stop.abort();
    await h.done;
  });

  it('reconciles within a period a key whose event was missed', async () => {
    const objs = new MemorySource([{ name: 'a' }]);
    const h = start([keysFrom(objs, (o) => [o.name])], () => Promise.resolve(converged()), {
      resyncPeriodMs: 10_000,
      deps: { random: () => 0 },
    });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    objs.objects.set('missed', { name: 'missed' }); // in the cache, never announced
    await h.clock.advance(9_000);
    expect(h.calls).toEqual(['a']);
    await h.clock.advance(1_000);
    await expect.poll(() => [...h.calls].sort(), poll).toEqual(['a', 'a', 'missed']);
    h.stop.abort();
    await h.done;
  });

  it('puts a change ahead of the keys a resync queued', async () => {
    const objs = new MemorySource([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    let unblock: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const h = start(
      [keysFrom(objs, (o) => [o.name])],
      async (key) => {
        if (key === 'a' && h.calls.length > 3) await blocked; // hold the worker inside the resync
        return converged();
      },
      { resyncPeriodMs: 60_000, deps: { random: () => 0 } },
    );
    await expect.poll(() => h.calls.length, poll).toBe(3);
    await h.clock.advance(60_000);
    await expect.poll(() => h.calls.length, poll).toBe(4); // the resync's 'a', held
    objs.emit('MODIFIED', { name: 'c', owner: 'changed' });
    unblock();
    await expect.poll(() => h.calls.slice(3), poll).toEqual(['a', 'c', 'b']);
    h.stop.abort();
    await h.done;
  });

  describe('waiting for the process to be warm', () => {
    function warmGate(): { warm: () => Promise<void>; open: () => void } {
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      return { warm: () => gate, open };
    }

    it('reconciles changes at once but holds the first pass until the process is warm', async () => {
      const objs = new MemorySource([{ name: 'a' }, { name: 'b' }], false);
      const { warm, open } = warmGate();
      const h = start([keysFrom(objs, (o) => [o.name])], undefined, { deps: { warm } });
      objs.emit('ADDED', { name: 'c' }); // part of the first list: first pass
      objs.markSynced();
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.calls).toEqual([]);
      objs.emit('MODIFIED', { name: 'b', owner: 'x' }); // a change: at once, and b's first pass
      await expect.poll(() => h.calls, poll).toEqual(['b']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.calls).toEqual(['b']);
      open();
      await expect.poll(() => h.calls, poll).toEqual(['b', 'c', 'a']); // c was listed first
      h.stop.abort();
      await h.done;
      expect(h.out.lines().some((l) => l['msg'] === 'process warm; first pass over every key')).toBe(true);
    });

    it('runs the first pass at once for a controller that asks for it', async () => {
      const { warm } = warmGate(); // never opens
      const h = start([keysFrom(new MemorySource([{ name: 'm1' }]), (o) => [o.name])], undefined, {
        firstPassAtOnce: true,
        deps: { warm },
      });
      await expect.poll(() => h.calls, poll).toEqual(['m1']);
      h.stop.abort();
      await h.done;
    });

    it('runs the first pass when whether the process is warm cannot be told', async () => {
      const h = start([keysFrom(new MemorySource([{ name: 'k' }]), (o) => [o.name])], undefined, {
        deps: { warm: () => Promise.reject(new Error('no caches')) },
      });
      await expect.poll(() => h.calls, poll).toEqual(['k']);
      h.stop.abort();
      await h.done;
    });

    it('stops cleanly while the first pass is still held', async () => {
      const { warm, open } = warmGate();
      const h = start([keysFrom(new MemorySource([{ name: 'k' }]), (o) => [o.name])], undefined, {
        deps: { warm },
      });
      await new Promise((resolve) => setImmediate(resolve));
      h.stop.abort();
      await h.done;
      open();
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.calls).toEqual([]);
    });
  });

  it('lets the event loop turn within one shared slice while workers run keys that never wait', async () => {
    // Two controllers of 8 workers each, 200 keys apiece, every reconcile 1 ms of busy work that
    // awaits nothing: one unbroken chain of promise callbacks unless the workers pause.
    const turns = new TurnBudget({ sliceMs: 10 });
    const busy = (): Promise<Outcome> => {
      const until = performance.now() + 1;
      while (performance.now() < until) {
        // a reconcile reading caches only
      }
      return Promise.resolve(converged());
    };
    const keys = (prefix: string): MemorySource =>
      new MemorySource(Array.from({ length: 200 }, (_, i) => ({ name: `${prefix}${i}` })));
    const harnesses = ['a', 'b'].map((prefix) =>
      start([keysFrom(keys(prefix), (o) => [o.name])], busy, {
        name: `busy-${prefix}`,
        workers: 8,
        deps: { turns },
      }),
    );
    const reconciled = (): number => harnesses.reduce((n, h) => n + h.calls.length, 0);
    const seenAtFirstTurn = new Promise<number>((resolve) => {
      setImmediate(() => {
        resolve(reconciled());
      });
    });
    // One 10 ms slice for all sixteen workers, not one each (160 keys) nor none (400).
    expect(await seenAtFirstTurn).toBeLessThan(40);
    await expect.poll(reconciled, poll).toBe(400);
    for (const h of harnesses) h.stop.abort();
    await Promise.all(harnesses.map((h) => h.done));
  });

  it('binds controller, key and reconcileId to the reconcile logger', async () => {
    const h = start([keysFrom(new MemorySource([{ name: 'ns/k' }]), (o) => [o.name])], (_key, { log }) => {
      log.info({ cluster: 'member1' }, 'doing work');
      return Promise.resolve(converged());
    });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    h.stop.abort();
    await h.done;
    const line = h.out.lines().find((l) => l['msg'] === 'doing work');
    expect(line).toMatchObject({ controller: 'test-controller', key: 'ns/k', cluster: 'member1' });
    expect(String(line?.['reconcileId'])).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('passes the injected clock and a signal that aborts on stop', async () => {
    let seen: { now: number; signal: AbortSignal } | undefined;
    const h = start([keysFrom(new MemorySource([{ name: 'k' }]), (o) => [o.name])], (_key, ctx) => {
      seen = { now: ctx.now(), signal: ctx.signal };
      return Promise.resolve(converged());
    });
    await expect.poll(() => seen, poll).toBeDefined();
    expect(seen?.now).toBe(h.clock.now());
    expect(seen?.signal.aborted).toBe(false);
    h.stop.abort();
    await h.done;
    expect(seen?.signal.aborted).toBe(true);
  });

  it('lets in-flight reconciles finish before resolving on stop', async () => {
    let release: () => void = () => undefined;
    let finished = false;
    const h = start([keysFrom(new MemorySource([{ name: 'slow' }]), (o) => [o.name])], async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
      return converged();
    });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    h.stop.abort();
    let resolved = false;
    void h.done.then(() => (resolved = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    release();
    await h.done;
    expect(finished).toBe(true);
  });

  it('runs several keys at once with several workers, one key at a time', async () => {
    const objs = new MemorySource(['a', 'b', 'c'].map((name) => ({ name })));
    const active = new Set<string>();
    let peak = 0;
    const releases: (() => void)[] = [];
    const h = start(
      [keysFrom(objs, (o) => [o.name])],
      async (key) => {
        active.add(key);
        peak = Math.max(peak, active.size);
        await new Promise<void>((resolve) => releases.push(resolve));
        active.delete(key);
        return converged();
      },
      { workers: 3 },
    );
    await expect.poll(() => active.size, poll).toBe(3);
    objs.emit('MODIFIED', { name: 'a' }); // 'a' is running: must wait for done
    for (const release of releases.splice(0)) release();
    await expect.poll(() => h.calls.length, poll).toBe(4);
    for (const release of releases.splice(0)) release();
    h.stop.abort();
    await h.done;
    expect(peak).toBe(3);
  });

  it('stops without reconciling when aborted before the sources synced', async () => {
    const never = new MemorySource([{ name: 'k' }], false);
    const h = start([keysFrom(never, (o) => [o.name])]);
    h.stop.abort();
    await h.done;
    expect(h.calls).toEqual([]);
    expect(never.handlers.size).toBe(0);
  });

  it('rejects when a source fails to sync', async () => {
    const broken = {
      onChange: () => () => undefined,
      keys: () => [],
      synced: () => Promise.reject(new Error('no RBAC')),
    };
    await expect(start([broken]).done).rejects.toThrow('no RBAC');
  });

  it('rejects a spec with a bad worker count', async () => {
    await expect(start([], undefined, { workers: 0 }).done).rejects.toThrow(RangeError);
  });

  it('rejects a retry cap that is not a positive number', async () => {
    for (const maxRetryDelayMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(start([], undefined, { maxRetryDelayMs }).done).rejects.toThrow(/maxRetryDelayMs/);
    }
  });

  it("counts the first pass's keys as pass keys, a change's not", async () => {
    const objs = new MemorySource([{ name: 'a' }, { name: 'b' }]);
    const h = start([keysFrom(objs, (o) => [o.name])]);
    await expect.poll(() => h.calls.length, poll).toBe(2);
    objs.emit('MODIFIED', { name: 'a', owner: 'x' });
    await expect.poll(() => h.calls.length, poll).toBe(3);
    h.stop.abort();
    await h.done;
    const text = await h.registry.metrics();
    expect(text).toContain('karmada_failover_workqueue_pass_keys_total{controller="test-controller"} 2');
  });

  it('exports reconcile and work queue metrics, zeroed before the first reconcile', async () => {
    const objs = new MemorySource([], true);
    let fail = true;
    const h = start([keysFrom(objs, (o) => [o.name])], () =>
      fail ? Promise.reject(new Error('conflict')) : Promise.resolve(converged()),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const before = await h.registry.metrics();
    for (const result of ['success', 'recheck', 'error', 'terminal_error']) {
      expect(before).toContain(
        `karmada_failover_reconcile_total{controller="test-controller",result="${result}"} 0`,
      );
    }
    expect(before).toContain('karmada_failover_workqueue_depth{controller="test-controller"} 0');
    objs.emit('ADDED', { name: 'k' });
    await expect.poll(() => h.calls.length, poll).toBe(1);
    fail = false;
    await h.clock.advance(100);
    await expect.poll(() => h.calls.length, poll).toBe(2);
    h.stop.abort();
    await h.done;
    const text = await h.registry.metrics();
    expect(text).toContain('karmada_failover_reconcile_total{controller="test-controller",result="error"} 1');
    expect(text).toContain(
      'karmada_failover_reconcile_total{controller="test-controller",result="success"} 1',
    );
    expect(text).toContain('karmada_failover_workqueue_adds_total{controller="test-controller"} 2');
    expect(text).toContain('karmada_failover_workqueue_retries_total{controller="test-controller"} 1');
    expect(text).toContain('karmada_failover_workqueue_pass_keys_total{controller="test-controller"} 0');
    expect(text).toContain(
      'karmada_failover_reconcile_duration_seconds_count{controller="test-controller"} 2',
    );
    expect(text).toContain(
      'karmada_failover_workqueue_work_duration_seconds_count{controller="test-controller"} 2',
    );
    expect(text).toContain(
      'karmada_failover_workqueue_queue_duration_seconds_count{controller="test-controller"} 2',
    );
  });
});

describe('controllerRunnable', () => {
  it('wraps a controller as a leader-only runnable by default', async () => {
    const spec: ControllerSpec = { name: 'c', sources: [], reconcile: () => Promise.resolve(converged()) };
    const deps: RunnerDeps = { log: createLogger({ component: 't', level: 'silent' }) };
    const r = controllerRunnable(spec, deps);
    expect(r).toMatchObject({ name: 'c', needLeaderElection: true });
    expect(controllerRunnable(spec, deps, { needLeaderElection: false }).needLeaderElection).toBe(false);
    const stop = new AbortController();
    const running = r.start(stop.signal);
    stop.abort();
    await expect(running).resolves.toBeUndefined();
  });
});
