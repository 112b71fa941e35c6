import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResolvConf, resolvConfFileProblem } from './resolv-conf-file.ts';

describe('resolv.conf files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kf-resolv-'));
    await writeFile(join(dir, 'good'), 'nameserver 10.96.0.10\nsearch svc.cluster.local\n');
    await writeFile(join(dir, 'garbage'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0xff, 0xfe]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['good', undefined],
    ['missing', 'does not exist (ENOENT)'],
    ['garbage', 'is not a text file'],
    ['', 'is a directory, not a file (EISDIR)'],
  ])('judge %j at start-up', (name, problem) => {
    const path = join(dir, name);
    const found = resolvConfFileProblem(path);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toBe(`--resolv-conf ${path} ${problem}`);
  });

  it('reads the text of a usable file every round, and says why another cannot be used', async () => {
    expect(await readResolvConf(join(dir, 'good'))).toEqual({
      text: 'nameserver 10.96.0.10\nsearch svc.cluster.local\n',
    });
    expect(await readResolvConf(dir)).toEqual({
      problem: `--resolv-conf ${dir} is a directory, not a file (EISDIR)`,
    });
  });
});
