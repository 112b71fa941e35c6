import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onShutdownSignal, type SignalSource } from './signals.ts';

function fakeProcess(): EventEmitter & SignalSource {
  return new EventEmitter() as EventEmitter & SignalSource;
}

describe('onShutdownSignal', () => {
  it('aborts on the first SIGTERM and reports every signal with a count', () => {
    const source = fakeProcess();
    const seen: string[] = [];
    const sub = onShutdownSignal((signal, count) => seen.push(`${signal} ${count}`), { source });
    expect(sub.signal.aborted).toBe(false);
    source.emit('SIGTERM', 'SIGTERM');
    expect(sub.signal.aborted).toBe(true);
    expect((sub.signal.reason as Error).message).toBe('received SIGTERM');
    source.emit('SIGINT', 'SIGINT');
    expect(seen).toEqual(['SIGTERM 1', 'SIGINT 2']);
    expect((sub.signal.reason as Error).message).toBe('received SIGTERM');
    sub.unsubscribe();
  });

  it('removes its listeners on unsubscribe', () => {
    const source = fakeProcess();
    const sub = onShutdownSignal(undefined, { source });
    expect(source.listenerCount('SIGTERM')).toBe(1);
    expect(source.listenerCount('SIGINT')).toBe(1);
    sub.unsubscribe();
    expect(source.listenerCount('SIGTERM')).toBe(0);
    expect(source.listenerCount('SIGINT')).toBe(0);
    source.emit('SIGTERM', 'SIGTERM');
    expect(sub.signal.aborted).toBe(false);
  });

  it('listens to the signals it is given', () => {
    const source = fakeProcess();
    const sub = onShutdownSignal(undefined, { source, signals: ['SIGHUP'] });
    source.emit('SIGTERM', 'SIGTERM');
    expect(sub.signal.aborted).toBe(false);
    source.emit('SIGHUP', 'SIGHUP');
    expect(sub.signal.aborted).toBe(true);
    sub.unsubscribe();
  });

  it('subscribes to the real process by default', () => {
    const before = process.listenerCount('SIGTERM');
    const sub = onShutdownSignal();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    sub.unsubscribe();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
