import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResourceInterpreter, type ResourceInterpreter } from '@kf/interpreter';
import { customization } from '@kf/interpreter/testing';
import { desiredObject, type MemberObject } from './manifest-plan.ts';
import { RetainFailedError, retainedObject } from './retain.ts';

const TARGET = { apiVersion: 'example.com/v1', kind: 'Widget' };
const work = { namespace: 'karmada-es-member1', name: 'w-1' };
const target = { work, namespaced: true };
const desired = desiredObject(
  { ...TARGET, metadata: { name: 'w', namespace: 'default' }, spec: { size: 3, paused: false } },
  work,
  true,
);
const observed: MemberObject = {
  ...TARGET,
  metadata: { name: 'w', namespace: 'default', uid: 'u1', resourceVersion: '7', generation: 4 },
  spec: { size: 3, paused: true },
  status: { ready: 1 },
};

let interpreter: ResourceInterpreter;
beforeAll(async () => {
  interpreter = await createResourceInterpreter([
    customization('widgets', TARGET, {
      // Keeps what the member decided, and copies the member's metadata whole (server fields too).
      Retain: `function Retain(desired, observed)
        desired.spec.paused = observed.spec.paused
        if desired.spec.size == 13 then error("size 13 is unlucky") end
        if desired.spec.size == 7 then desired.metadata.name = "other" end
        desired.metadata.uid = observed.metadata.uid
        desired.metadata.resourceVersion = observed.metadata.resourceVersion
        return desired
      end`,
    }),
  ]);
});
afterAll(() => {
  interpreter.close();
});

describe('retainedObject', () => {
  it('applies the manifest as is when the object does not exist yet, or without an interpreter', () => {
    expect(retainedObject(desired, undefined, target, interpreter)).toBe(desired);
    expect(retainedObject(desired, observed, target, undefined)).toBe(desired);
  });

  it('applies the manifest as is for a kind without a Retain script', () => {
    const cm = desiredObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, work, true);
    expect(retainedObject(cm, { ...cm, data: { a: '1' } }, target, interpreter)).toBe(cm);
  });

  it("applies the script's result, cleaned of server fields and still marked as Karmada's", () => {
    const applied = retainedObject(desired, observed, target, interpreter);
    expect(applied.spec).toEqual({ size: 3, paused: true });
    expect(applied.metadata).toEqual(desired.metadata);
  });

  it('fails that manifest with the script error, or when the script returns another object', () => {
    const unlucky = { ...desired, spec: { size: 13 } };
    expect(() => retainedObject(unlucky, observed, target, interpreter)).toThrow(RetainFailedError);
    expect(() => retainedObject(unlucky, observed, target, interpreter)).toThrow(
      /^cannot retain the member's fields of Widget default\/w: Retain script of ResourceInterpreterCustomization widgets: .*size 13 is unlucky/,
    );
    expect(() => retainedObject({ ...desired, spec: { size: 7 } }, observed, target, interpreter)).toThrow(
      /returned example.com\/v1 Widget default\/other, not the same object/,
    );
  });
});
