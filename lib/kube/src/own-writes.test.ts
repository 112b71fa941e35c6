import { describe, expect, it } from 'vitest';
import { OwnWrites } from './own-writes.ts';

const at = (name: string, rv: string, namespace = 'ns') => ({
  metadata: { name, namespace, resourceVersion: rv },
});

describe('OwnWrites', () => {
  it('recognises the event of a recorded write once, and nothing else', () => {
    const own = new OwnWrites();
    own.wrote(at('a', '5'));
    expect(own.isEcho(at('a', '4'))).toBe(false); // an earlier change by someone else
    expect(own.isEcho(at('a', '5'))).toBe(true);
    expect(own.isEcho(at('a', '5'))).toBe(false); // consumed: a relist delivering it again wakes
    expect(own.isEcho(at('a', '6'))).toBe(false);
    expect(own.size).toBe(0);
  });

  it('keys objects by namespace and name', () => {
    const own = new OwnWrites();
    own.wrote(at('a', '5', 'one'));
    expect(own.isEcho(at('a', '5', 'two'))).toBe(false);
    expect(own.isEcho(at('b', '5', 'one'))).toBe(false);
    expect(own.isEcho(at('a', '5', 'one'))).toBe(true);
  });

  it('names objects as told, so that objects of several kinds share one record', () => {
    const own = new OwnWrites({
      identify: (o) => `${(o as { kind?: string }).kind ?? ''}/${o.metadata?.name ?? ''}`,
    });
    own.wrote({ kind: 'Deployment', ...at('a', '5') });
    expect(own.isEcho({ kind: 'Service', ...at('a', '5') })).toBe(false);
    expect(own.isEcho({ kind: 'Deployment', ...at('a', '5') })).toBe(true);
  });

  it('recognises two writes of one object whose events arrive after both answers', () => {
    const own = new OwnWrites();
    own.wrote(at('a', '5')); // spec
    own.wrote(at('a', '6')); // status
    expect(own.isEcho(at('a', '5'))).toBe(true);
    expect(own.isEcho(at('a', '6'))).toBe(true);
  });

  it('drops the writes before a matched one: their events came first or never will (a relist)', () => {
    const own = new OwnWrites();
    own.wrote(at('a', '5'));
    own.wrote(at('a', '6'));
    expect(own.isEcho(at('a', '6'))).toBe(true);
    expect(own.isEcho(at('a', '5'))).toBe(false);
    expect(own.size).toBe(0);
  });

  it('records nothing without a resourceVersion, and forgets on request', () => {
    const own = new OwnWrites();
    own.wrote(undefined);
    own.wrote({ metadata: { name: 'a', namespace: 'ns' } });
    expect(own.size).toBe(0);
    own.wrote(at('a', '5'));
    own.forget('ns/a');
    expect(own.isEcho(at('a', '5'))).toBe(false);
  });

  it('stays bounded: a few writes per object, and afresh beyond its object limit', () => {
    const own = new OwnWrites({ maxObjects: 3 });
    for (let rv = 1; rv <= 10; rv++) own.wrote(at('a', String(rv)));
    expect(own.isEcho(at('a', '6'))).toBe(false); // beyond the last four
    expect(own.isEcho(at('a', '7'))).toBe(true);
    for (const name of ['b', 'c', 'd']) own.wrote(at(name, '1'));
    expect(own.size).toBeLessThanOrEqual(3);
    expect(own.isEcho(at('d', '1'))).toBe(true);
  });
});
