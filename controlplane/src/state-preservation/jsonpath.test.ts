import { describe, expect, it } from 'vitest';
import { JsonPathError, evaluateJsonPath, formatFloat } from './jsonpath.ts';

const status = {
  replicas: 3,
  readyReplicas: 2.5,
  big: 1_000_000,
  tiny: 0.00001,
  paused: false,
  nothing: null,
  jobStatus: { jobID: 'a1b2', state: 'RUNNING' },
  conditions: [
    { type: 'Available', status: 'True' },
    { type: 'Progressing', status: 'False' },
  ],
  'odd.key': 'dotted',
  nested: { a: { id: 'x' }, b: { id: 'y' } },
};

describe('evaluateJsonPath', () => {
  it.each([
    ['a field', '{.jobStatus.jobID}', 'a1b2'],
    ['spaces inside the braces', '{ .jobStatus.jobID }', 'a1b2'],
    ['a leading $', '{$.jobStatus.state}', 'RUNNING'],
    ['an integer as float64 %v', '{.replicas}', '3'],
    ['a fraction', '{.readyReplicas}', '2.5'],
    ['a million in exponent form', '{.big}', '1e+06'],
    ['a small number in exponent form', '{.tiny}', '1e-05'],
    ['a boolean', '{.paused}', 'false'],
    ['null', '{.nothing}', 'null'],
    ['a map as compact JSON', '{.jobStatus}', '{"jobID":"a1b2","state":"RUNNING"}'],
    ['an index', '{.conditions[1].type}', 'Progressing'],
    ['a negative index', '{.conditions[-1].status}', 'False'],
    ['a wildcard joins with spaces', '{.conditions[*].type}', 'Available Progressing'],
    ['a slice', '{.conditions[0:1].type}', 'Available'],
    ['a quoted key', "{.['odd.key']}", 'dotted'],
    ['a double-quoted key after a field', '{.jobStatus["state"]}', 'RUNNING'],
    ['several keys', "{.jobStatus['jobID','state']}", 'a1b2 RUNNING'],
    ['recursive descent', '{..id}', 'x y'],
    ['.* over a map (sorted keys)', '{.nested.*.id}', 'x y'],
    ['text around expressions', 'job-{.jobStatus.jobID}/{.replicas}', 'job-a1b2/3'],
    ['a nested map', '{.nested.a}', '{"id":"x"}'],
    ['a wildcard over an empty array', '{.empty[*]}', ''],
  ])('%s: %s → %s', (_name, template, expected) => {
    expect(evaluateJsonPath(template, { ...status, empty: [] })).toBe(expected);
  });

  it.each([
    ['a missing key', '{.jobStatus.missing}'],
    ['an index out of bounds', '{.conditions[5]}'],
    ['an index into a map', '{.jobStatus[0]}'],
    ['an unclosed brace', '{.jobStatus'],
    ['an unclosed bracket', '{.conditions[0}'],
    ['a filter', '{.conditions[?(@.type=="Available")].status}'],
    ['range', '{range .conditions[*]}{.type}{end}'],
    ['a bad subscript', '{.conditions[a-b]}'],
  ])('fails on %s', (_name, template) => {
    expect(() => evaluateJsonPath(template, status)).toThrow(JsonPathError);
  });
});

describe('formatFloat', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [-2.5, '-2.5'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.000123, '0.000123'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-07'],
    [1e100, '1e+100'],
  ])('%d → %s (Go %%v of a float64)', (f, expected) => {
    expect(formatFloat(f)).toBe(expected);
  });
});
