import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMicroTime, leaseDurationMs, leaseRenewedAtMs, parseMicroTime } from './lease.ts';

describe('formatMicroTime', () => {
  it.each([
    ['a whole second', Date.UTC(2026, 10, 22, 4, 38, 58), '2026-11-22T04:38:58.000000Z'],
    ['milliseconds', Date.UTC(2026, 10, 22, 4, 38, 58, 123), '2026-11-22T04:38:58.123000Z'],
    [
      'microseconds from a fractional ms',
      Date.UTC(2026, 10, 22, 4, 38, 58, 123) + 0.456,
      '2026-11-22T04:38:58.123456Z',
    ],
    ['the epoch', 0, '1970-01-01T00:00:00.000000Z'],
    ['the last microsecond of a day', Date.UTC(2026, 0, 1) - 0.001, '2025-12-31T23:59:59.999999Z'],
  ])('formats %s', (_name, ms, expected) => {
    expect(formatMicroTime(ms)).toBe(expected);
  });

  it('always has exactly six fractional digits and UTC', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 0, 1) }), (ms) => {
        expect(formatMicroTime(ms)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }),
    );
  });

  it('round-trips through parseMicroTime at millisecond precision', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 0, 1) }), (ms) => {
        expect(parseMicroTime(formatMicroTime(ms))).toBe(ms);
      }),
    );
  });
});

describe('parseMicroTime', () => {
  it.each([
    ['MicroTime', '2026-11-22T04:38:58.123456Z', Date.UTC(2026, 10, 22, 4, 38, 58, 123) + 0.456],
    ['Time without fraction', '2026-11-22T04:38:58Z', Date.UTC(2026, 10, 22, 4, 38, 58)],
    ['nanoseconds', '2026-11-22T04:38:58.000000001Z', Date.UTC(2026, 10, 22, 4, 38, 58) + 0.000001],
    ['an offset', '2026-11-22T06:38:58.5+02:00', Date.UTC(2026, 10, 22, 4, 38, 58, 500)],
    ['lower-case z', '2026-11-22T04:38:58z', Date.UTC(2026, 10, 22, 4, 38, 58)],
  ])('parses %s', (_name, text, expected) => {
    expect(parseMicroTime(text)).toBeCloseTo(expected, 6);
  });

  it.each([['garbage'], [''], ['2026-11-22 04:38:58Z'], ['2026-13-45T04:38:58Z']])('rejects %j', (text) => {
    expect(parseMicroTime(text)).toBeUndefined();
  });

  it('is undefined for undefined', () => {
    expect(parseMicroTime(undefined)).toBeUndefined();
  });
});

describe('lease readers', () => {
  it('reads renewTime and leaseDurationSeconds', () => {
    const lease = { spec: { renewTime: '2026-11-22T04:38:58.000000Z', leaseDurationSeconds: 40 } };
    expect(leaseRenewedAtMs(lease)).toBe(Date.UTC(2026, 10, 22, 4, 38, 58));
    expect(leaseDurationMs(lease)).toBe(40_000);
  });

  it('gives undefined for a missing lease or field', () => {
    expect(leaseRenewedAtMs(undefined)).toBeUndefined();
    expect(leaseRenewedAtMs({ spec: {} })).toBeUndefined();
    expect(leaseDurationMs({})).toBeUndefined();
  });
});
