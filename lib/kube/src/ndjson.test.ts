import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from './ndjson.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function splitAll(chunks: readonly (Uint8Array | string)[]): string[] {
  const s = new LineSplitter();
  return [...chunks.flatMap((c) => s.push(c)), ...s.end()];
}

describe('LineSplitter', () => {
  it.each<[string, string[], string[]]>([
    ['one line per chunk', ['{"a":1}\n', '{"b":2}\n'], ['{"a":1}', '{"b":2}']],
    ['several lines in one chunk', ['{"a":1}\n{"b":2}\n'], ['{"a":1}', '{"b":2}']],
    ['a line across chunks', ['{"a"', ':1}\n{"b', '":2}\n'], ['{"a":1}', '{"b":2}']],
    ['a last line without newline', ['{"a":1}\n{"b":2}'], ['{"a":1}', '{"b":2}']],
    ['CRLF endings', ['{"a":1}\r\n{"b":2}\r\n'], ['{"a":1}', '{"b":2}']],
    ['blank lines dropped', ['\n\n{"a":1}\n  \n'], ['{"a":1}']],
    ['nothing at all', [], []],
  ])('handles %s', (_name, chunks, expected) => {
    expect(splitAll(chunks.map(bytes))).toEqual(expected);
  });

  it('returns nothing until a newline arrives', () => {
    const s = new LineSplitter();
    expect(s.push(bytes('{"a":'))).toEqual([]);
    expect(s.push(bytes('1}'))).toEqual([]);
    expect(s.push(bytes('\n'))).toEqual(['{"a":1}']);
    expect(s.end()).toEqual([]);
  });

  it('keeps a multi-byte character split between chunks', () => {
    const all = bytes('{"name":"zürich-🚀"}\n');
    const cut = all.indexOf(0xf0) + 2; // inside the 4-byte emoji
    expect(splitAll([all.slice(0, cut), all.slice(cut)])).toEqual(['{"name":"zürich-🚀"}']);
  });

  it('gives the same lines however the bytes are cut', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => JSON.stringify({ s }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const all = bytes(lines.map((l) => `${l}\n`).join(''));
        const points = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let from = 0;
        for (const p of [...points, all.length]) {
          chunks.push(all.slice(from, p));
          from = p;
        }
        expect(splitAll(chunks)).toEqual(lines);
      }),
    );
  });
});
