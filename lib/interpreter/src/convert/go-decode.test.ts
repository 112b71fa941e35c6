import { describe, expect, it } from 'vitest';
import { DecodeError, decodeAs } from './go-decode.ts';
import { componentsSchema, dependenciesSchema, replicaRequirementsSchema } from './schemas.ts';

describe('decodeAs', () => {
  it('drops unknown fields and matches field names case-insensitively', () => {
    expect(
      decodeAs({ Namespace: 'ns', bogus: 1, priorityClassName: 'high' }, replicaRequirementsSchema),
    ).toEqual({
      namespace: 'ns',
      priorityClassName: 'high',
    });
  });

  it('lets a later key that folds to the same field win, as Go does', () => {
    expect(decodeAs({ namespace: 'exact', NAMESPACE: 'folded' }, replicaRequirementsSchema)).toEqual({
      namespace: 'folded',
    });
  });

  it('writes quantities in canonical form', () => {
    expect(
      decodeAs(
        { resourceRequest: { cpu: 0.5, memory: '1024Mi', storage: '1e3' } },
        replicaRequirementsSchema,
      ),
    ).toEqual({ resourceRequest: { cpu: '500m', memory: '1Gi', storage: '1e3' } });
  });

  it('omits zero values of omitempty fields and keeps set pointers, even empty', () => {
    expect(
      decodeAs({ namespace: '', resourceRequest: {}, nodeClaim: {} }, replicaRequirementsSchema),
    ).toEqual({
      nodeClaim: {},
    });
  });

  it('writes required fields even at their zero value', () => {
    expect(decodeAs([{ name: 'a' }], componentsSchema)).toEqual([{ name: 'a', replicas: 0 }]);
    expect(decodeAs([{ name: 'x' }], dependenciesSchema)).toEqual([{ apiVersion: '', kind: '', name: 'x' }]);
  });

  it('treats null as the zero value', () => {
    expect(decodeAs(null, replicaRequirementsSchema)).toBeUndefined();
    expect(decodeAs({ namespace: null }, replicaRequirementsSchema)).toEqual({});
  });

  it('decodes a full node claim', () => {
    const claim = {
      nodeClaim: {
        hardNodeAffinity: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
        },
        nodeSelector: { disk: 'ssd' },
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 0 }],
      },
    };
    expect(decodeAs(claim, replicaRequirementsSchema)).toEqual(claim);
  });

  it.each([
    [
      { namespace: 5 },
      replicaRequirementsSchema,
      'field namespace: cannot unmarshal number 5 into Go value of type string',
    ],
    [
      { nodeClaim: [] },
      replicaRequirementsSchema,
      'field nodeClaim: cannot unmarshal array into Go value of type NodeClaim',
    ],
    [
      { nodeClaim: { tolerations: {} } },
      replicaRequirementsSchema,
      'field nodeClaim.tolerations: cannot unmarshal object into Go value of type []Toleration',
    ],
    [
      { resourceRequest: { cpu: 'lots' } },
      replicaRequirementsSchema,
      "field resourceRequest.cpu: cannot parse 'lots': quantities must match the regular expression",
    ],
    [
      [{ name: 'a', replicas: 1.5 }],
      componentsSchema,
      'field [0].replicas: cannot unmarshal number 1.5 into Go value of type int32',
    ],
    [[{ name: 'a', replicas: 2 ** 31 }], componentsSchema, 'into Go value of type int32'],
    [{ a: 1 }, componentsSchema, 'the result: cannot unmarshal object into Go value of type []Component'],
    [[{ apiVersion: true }], dependenciesSchema, 'field [0].apiVersion: cannot unmarshal boolean'],
  ])('refuses a value of the wrong type: %j', (value, schema, message) => {
    expect(() => decodeAs(value, schema)).toThrow(DecodeError);
    expect(() => decodeAs(value, schema)).toThrow(message);
  });
});
