import { describe, expect, it } from 'vitest';
import { HealthChecks } from './health.ts';

describe('HealthChecks', () => {
  it('runs every check and reports which failed and why', async () => {
    const checks = new HealthChecks();
    const why = new Error('informer not synced');
    checks.add('ping', () => undefined);
    checks.add('sync', () => Promise.reject(why));
    checks.add('throws', () => {
      throw why;
    });
    expect(checks.names()).toEqual(['ping', 'sync', 'throws']);
    expect(await checks.run()).toEqual([
      { name: 'ping', ok: true },
      { name: 'sync', ok: false, error: why },
      { name: 'throws', ok: false, error: why },
    ]);
  });

  it('refuses a second check with the same name', () => {
    const checks = new HealthChecks();
    checks.add('ping', () => undefined);
    expect(() => {
      checks.add('ping', () => undefined);
    }).toThrow(/already registered/);
  });
});
