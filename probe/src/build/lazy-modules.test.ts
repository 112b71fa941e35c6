import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProcess } from '@kf/runtime/bundle';
import { LAZY_MODULES, lazyModules } from './lazy-modules.ts';

/** What the bundled entry reports, in the order it happened. */
interface Report {
  readonly loadedAtStart: readonly string[];
  readonly value: number;
  readonly loadedAfterRead: readonly string[];
  readonly thing: { readonly x: number; readonly isThing: boolean };
  readonly made: { readonly a: number; readonly kind: string };
  readonly called: string;
  readonly loadedAtEnd: readonly string[];
}

describe('lazy modules', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'probe-lazy-'));
    const loads = (name: string): string => `(globalThis.loads ??= []).push(${JSON.stringify(name)});`;
    await writeFile(
      join(dir, 'things.cjs'),
      `${loads('things')}\nclass Thing { constructor(x) { this.x = x; } }\nmodule.exports = { Thing, value: 42 };\n`,
    );
    await writeFile(
      join(dir, 'real.cjs'),
      `${loads('real')}\nfunction Real(a) { if (!new.target) return 'called ' + a; this.a = a; }\nReal.prototype.kind = 'real';\nmodule.exports = Real;\n`,
    );
    await writeFile(
      join(dir, 'entry.mjs'),
      `import { Thing, value } from './things.cjs';
import Real from './real.cjs';
import * as things from './things.cjs';
const loaded = () => [...(globalThis.loads ?? [])];
const loadedAtStart = loaded();
const v = value;
const loadedAfterRead = loaded();
const t = new Thing(1);
const r = new Real(2);
process.stdout.write(JSON.stringify({
  loadedAtStart,
  value: v,
  loadedAfterRead,
  thing: { x: t.x, isThing: t instanceof things.Thing },
  made: { a: r.a, kind: r.kind },
  called: Real(3),
  loadedAtEnd: loaded(),
}));
`,
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hands importers stand-ins that load the real module when first used', async () => {
    const outfile = join(dir, 'out.mjs');
    await bundleProcess({
      entry: join(dir, 'entry.mjs'),
      outfile,
      plugins: [lazyModules(['./things.cjs', './real.cjs'])],
    });
    const { stdout } = await promisify(execFile)(process.execPath, [outfile]);
    expect(JSON.parse(stdout) as Report).toEqual({
      loadedAtStart: [],
      value: 42,
      loadedAfterRead: ['things'],
      thing: { x: 1, isThing: true },
      made: { a: 2, kind: 'real' },
      called: 'called 3',
      loadedAtEnd: ['things', 'real'],
    });
  });

  it('lists what the probe loads on first use', () => {
    expect(LAZY_MODULES).toContain('socks-proxy-agent');
    expect(LAZY_MODULES).toContain('@opentelemetry/api');
    expect(LAZY_MODULES).not.toContain('openid-client');
  });
});
