import { describe, expect, it } from 'vitest';
import type { ManifestScriptFailure } from './manifest-statuses.ts';
import { ReportedFailures, failureEvent } from './script-failures.ts';

const health: ManifestScriptFailure = {
  ordinal: 0,
  object: 'CloneSet/default/web',
  operation: 'InterpretHealth',
  message: 'InterpretHealth script of ResourceInterpreterCustomization c: failed: script:2: boom',
};
const status: ManifestScriptFailure = { ...health, operation: 'InterpretStatus', message: 'bad' };

describe('ReportedFailures', () => {
  it('reports a failure once, however many times the Work is judged again', () => {
    const r = new ReportedFailures();
    expect(r.fresh('ns/w', [health], 0)).toEqual([health]);
    expect(r.fresh('ns/w', [health], 0)).toEqual([]);
    expect(r.fresh('ns/w', [health, status], 0)).toEqual([status]);
    // Another Work failing the same way is news of its own.
    expect(r.fresh('ns/v', [health], 0)).toEqual([health]);
  });

  it('reports again when the message changes, after the customizations changed, or after it cleared', () => {
    const r = new ReportedFailures();
    r.fresh('ns/w', [health], 0);
    const other = { ...health, message: 'other' };
    expect(r.fresh('ns/w', [other], 0)).toEqual([other]);
    expect(r.fresh('ns/w', [other], 1)).toEqual([other]);
    expect(r.fresh('ns/w', [], 1)).toEqual([]);
    expect(r.size).toBe(0);
    expect(r.fresh('ns/w', [other], 1)).toEqual([other]);
  });

  it('forgets a Work that is gone', () => {
    const r = new ReportedFailures();
    r.fresh('ns/w', [health], 0);
    r.forget('ns/w');
    expect(r.size).toBe(0);
    expect(r.fresh('ns/w', [health], 0)).toEqual([health]);
  });
});

describe('failureEvent', () => {
  it("is worded as upstream's, with its reasons", () => {
    expect(failureEvent(health)).toEqual({
      reason: 'InterpretHealthFailed',
      message: `Interpret health of object(CloneSet/default/web) failed, err: ${health.message}.`,
    });
    expect(failureEvent(status)).toEqual({
      reason: 'ReflectStatusFailed',
      message: 'Reflect status for object(CloneSet/default/web) failed, err: bad.',
    });
  });
});
