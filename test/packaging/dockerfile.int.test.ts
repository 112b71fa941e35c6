/**
 * The Dockerfile, checked without a Docker engine: the base is Node 24 slim pinned by digest and
 * tagged with development's Node version, npm is gone from the runtime stage, tini is pinned, the
 * runtime stage runs as a numeric non-root user under tini, and every bundle it copies is what
 * `npm run build` of its workspace writes. The builds are run for real, and each bundle starts
 * (`--help`) from a folder with no node_modules, as it will in the image.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

interface Instruction {
  readonly op: string;
  readonly args: string;
}
interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** Instructions of a Dockerfile (continuations joined, comments dropped), grouped by stage. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', rest = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'FROM') {
      const [from = '', , name] = rest.split(/\s+/);
      stages.push({ from, name, instructions: [] });
    } else if (stages.length === 0 && upper === 'ARG') {
      const [k = '', v = ''] = rest.split('=', 2);
      args.set(k, v);
    } else {
      stages.at(-1)?.instructions.push({ op: upper, args: rest.replace(/\s+/g, ' ') });
    }
  }
  return { args, stages };
}

const dockerfile = async () => parseDockerfile(await readFile(join(root, 'Dockerfile'), 'utf8'));

/** `COPY --from=build /src/<workspace>/dist/<file> …` sources of the runtime stage. */
function copiedBundles(stage: Stage): { workspace: string; file: string }[] {
  return stage.instructions
    .filter((i) => i.op === 'COPY' && i.args.includes('--from=build'))
    .flatMap((i) => i.args.split(' ').filter((a) => a.startsWith('/src/')))
    .map((src) => {
      const m = /^\/src\/([\w-]+)\/dist\/([\w.-]+)$/.exec(src);
      if (m === null) throw new Error(`unexpected COPY source ${src}`);
      return { workspace: m[1] ?? '', file: m[2] ?? '' };
    });
}

const execForm = (args: string): string[] => JSON.parse(args) as string[];

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kf-dockerfile-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('Dockerfile', () => {
  it('builds on Node 24 bookworm-slim pinned by digest, in two stages', async () => {
    const { args, stages } = await dockerfile();
    expect(args.get('NODE_IMAGE')).toMatch(/^node:24(\.\d+)*-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const s of stages) expect(s.from).toBe('${NODE_IMAGE}');
  });

  it('runs the Node version development and CI run (NODE_VERSION of scripts/lib.sh)', async () => {
    const lib = await readFile(join(root, 'scripts', 'lib.sh'), 'utf8');
    const pinned = /^NODE_VERSION="(\d+\.\d+\.\d+)"$/m.exec(lib)?.[1];
    expect(pinned, 'NODE_VERSION in scripts/lib.sh').toBeDefined();
    const { args } = await dockerfile();
    const tag = /^node:([\d.]+)-/.exec(args.get('NODE_IMAGE') ?? '')?.[1];
    expect(tag, 'the base image is tagged with an exact Node version').toBe(pinned);
  });

  it('pins tini to a Debian package version and leaves no package manager in the runtime', async () => {
    const runtime = (await dockerfile()).stages.at(-1)!;
    const runs = runtime.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    const install = runs.find((r) => r.includes('apt-get install')) ?? '';
    expect(install).toMatch(/\btini=\d[\w.+~:-]*/);
    const removed = runs.flatMap((r) => (/\brm -rf\b/.test(r) ? r.split(' ') : []));
    for (const path of ['/usr/local/lib/node_modules', '/usr/local/bin/npm', '/usr/local/bin/npx']) {
      expect(removed, `the runtime stage removes ${path}`).toContain(path);
    }
    // Nothing after the removal runs npm again.
    const last = runs.findLastIndex((r) => r.includes('/usr/local/bin/npm'));
    expect(runs.slice(last + 1).filter((r) => /\bnpm\b|\bnpx\b/.test(r))).toEqual([]);
  });

  it('runs as a numeric non-root user with tini as init', async () => {
    const runtime = (await dockerfile()).stages.at(-1)!;
    const user = runtime.instructions.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
    expect(user).toMatch(/^[1-9]\d*:\d+$/);
    const entrypoint = execForm(runtime.instructions.find((i) => i.op === 'ENTRYPOINT')?.args ?? '[]');
    expect(entrypoint).toEqual(['/usr/bin/tini', '--']);
    const installs = runtime.instructions.filter((i) => i.op === 'RUN' && i.args.includes('apt-get install'));
    expect(installs.some((i) => /\btini\b/.test(i.args))).toBe(true);
  });

  it('copies only bundles, each written by npm run build of its workspace', async () => {
    const { stages } = await dockerfile();
    const [build, runtime] = stages as [Stage, Stage];
    const bundles = copiedBundles(runtime);
    const workspaces = [...new Set(bundles.map((b) => b.workspace))].sort();
    expect(workspaces).toEqual(['agent', 'controlplane', 'probe']);
    const buildRun = build.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    for (const ws of workspaces) {
      const pkg = JSON.parse(await readFile(join(root, ws, 'package.json'), 'utf8')) as {
        name: string;
        scripts?: Record<string, string>;
      };
      expect(pkg.scripts?.build, `${ws} has a build script`).toBeDefined();
      expect(buildRun.some((r) => r.includes(`npm run build -w ${pkg.name}`))).toBe(true);
    }
    // Nothing from node_modules or sources reaches the runtime stage: bundles, their maps and
    // notices, and the Lua VM's WebAssembly that the agent and the control plane load beside them.
    for (const b of bundles) expect(b.file).toMatch(/^([\w-]+\.mjs(\.map|\.LEGAL\.txt)?|glue\.wasm)$/);
    expect(bundles.filter((b) => b.file === 'glue.wasm')).toHaveLength(1);
  });

  it('has every file it copies and starts every program after the builds', { timeout: 600_000 }, async () => {
    const { stages } = await dockerfile();
    const runtime = stages.at(-1)!;
    const bundles = copiedBundles(runtime);
    for (const ws of new Set(bundles.map((b) => b.workspace))) {
      // A bundler gone wrong must not take the machine down with it.
      await run('npm', ['run', 'build', '-w', `@kf/${ws}`], {
        cwd: root,
        timeout: 300_000,
        killSignal: 'SIGKILL',
      });
    }
    for (const b of bundles) {
      const s = await stat(join(root, b.workspace, 'dist', b.file));
      expect(s.size, `${b.workspace}/dist/${b.file}`).toBeGreaterThan(0);
    }
    // The image's /app/dist, without node_modules anywhere above it.
    const dist = join(scratch, 'dist');
    await run('mkdir', ['-p', dist]);
    for (const b of bundles) await copyFile(join(root, b.workspace, 'dist', b.file), join(dist, b.file));
    const programs = bundles.filter((b) => b.file.endsWith('.mjs')).map((b) => b.file);
    for (const p of programs) {
      const { stdout } = await run('node', [join(dist, p), '--help'], { cwd: scratch });
      expect(stdout, p).toMatch(/^Usage: /);
    }
    // The default command and every chart's command name a copied bundle.
    const cmd = execForm(runtime.instructions.find((i) => i.op === 'CMD')?.args ?? '[]');
    expect(cmd[0]).toBe('node');
    expect(programs.map((p) => `dist/${p}`)).toContain(cmd.find((a) => a.endsWith('.mjs')));
    for (const chart of await readdir(join(root, 'charts'))) {
      for (const t of await readdir(join(root, 'charts', chart, 'templates'))) {
        const text = await readFile(join(root, 'charts', chart, 'templates', t), 'utf8');
        for (const m of text.matchAll(/\bdist\/([\w-]+\.mjs)\b/g))
          expect(programs, `${chart}/${t}`).toContain(m[1]);
      }
    }
  });
});
