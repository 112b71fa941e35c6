import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { renderYaml } from './yaml.ts';

describe('renderYaml', () => {
  it.each([
    ['plain words stay plain', { kind: 'Cluster', path: 'a/b.c-d_e' }, 'kind: Cluster\npath: a/b.c-d_e\n'],
    [
      'words YAML 1.1 reads as booleans are quoted',
      { a: 'yes', b: 'On', c: 'n', d: 'null', e: 'True' },
      'a: "yes"\nb: "On"\nc: "n"\nd: "null"\ne: "True"\n',
    ],
    [
      'numbers in strings are quoted',
      { a: '1', b: '0x1F', c: '1e3', d: '2024-01-25' },
      'a: "1"\nb: "0x1F"\nc: "1e3"\nd: "2024-01-25"\n',
    ],
    [
      'punctuation is quoted',
      { a: '.spec.x', b: 'a: b', c: '#x', d: '' },
      'a: ".spec.x"\nb: "a: b"\nc: "#x"\nd: ""\n',
    ],
    ['scalars', { a: 1, b: true, c: null, d: -2.5 }, 'a: 1\nb: true\nc: null\nd: -2.5\n'],
    ['empty collections are written inline', { a: {}, b: [] }, 'a: {}\nb: []\n'],
    ['undefined keys are left out', { a: undefined, b: 1 }, 'b: 1\n'],
    ['mappings nest by two spaces', { a: { b: { c: 1 } } }, 'a:\n  b:\n    c: 1\n'],
    ['sequences sit at their key', { a: ['p', 'q'] }, 'a:\n- p\n- q\n'],
    ['mappings in sequences start on the dash line', { a: [{ b: 1, c: [2] }] }, 'a:\n- b: 1\n  c:\n  - 2\n'],
    ['sequences in sequences', [[1, 2], []], '- - 1\n  - 2\n- []\n'],
    ['an empty document', {}, '{}\n'],
  ])('%s', (_name, value, expected) => {
    expect(renderYaml(value)).toBe(expected);
  });

  it.each([
    ['quoting and escapes', { s: 'line\nbreak "quoted" \\ tab\t', u: 'ünïcödé ’' }],
    ['regular expressions', { p: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))$', q: "self.x == 'y'" }],
    ['deep mixtures', { a: [{ b: [{ c: ['d', { e: [] }] }] }, 'f'], g: { h: {} } }],
  ])('reads back as the same data: %s', (_name, value) => {
    expect(loadAllYaml(renderYaml(value))).toEqual([value]);
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [() => 1], [Symbol('x')]])('refuses %s', (value) => {
    expect(() => renderYaml({ value })).toThrow(TypeError);
  });
});
