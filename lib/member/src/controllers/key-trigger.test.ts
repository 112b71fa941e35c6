import { describe, expect, it } from 'vitest';
import { KeyTrigger } from './key-trigger.ts';

describe('KeyTrigger', () => {
  it('queues fired keys on every listener until it unsubscribes', async () => {
    const trigger = new KeyTrigger();
    const a: string[] = [];
    const b: string[] = [];
    const stopA = trigger.onChange((k) => a.push(k));
    trigger.onChange((k) => b.push(k));
    trigger.fire('member1');
    stopA();
    stopA();
    trigger.fire('member2');
    expect(a).toEqual(['member1']);
    expect(b).toEqual(['member1', 'member2']);
    expect(trigger.keys()).toEqual([]);
    await expect(trigger.synced()).resolves.toBeUndefined();
  });

  it('firing with nobody listening is harmless', () => {
    expect(() => {
      new KeyTrigger().fire('member1');
    }).not.toThrow();
  });
});
