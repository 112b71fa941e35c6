/**
 * The scale benchmark over several sizes: each size runs in a process of its own (a fresh
 * federation, nothing carried over), its phase lines are collected, and one table compares them,
 * each figure per binding or per member where that is what should stay flat.
 *
 *   node controlplane/bench/scale.bench.ts --sizes=1000x10,10000x100,30000x1000
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

export interface Size {
  readonly bindings: number;
  readonly members: number;
}

/** `--sizes` (or KF_SCALE_SIZES) as sizes; undefined when neither is given. */
export function curveSizes(envPrefix: string): readonly Size[] | undefined {
  const { values } = parseArgs({ options: { sizes: { type: 'string' } }, strict: false });
  const text = typeof values.sizes === 'string' ? values.sizes : process.env[`${envPrefix}_SIZES`];
  if (text === undefined || text === '') return undefined;
  return text.split(',').map((part) => {
    const m = /^(\d+)x(\d+)$/.exec(part.trim());
    const size = m === null ? undefined : { bindings: Number(m[1]), members: Number(m[2]) };
    if (size === undefined || size.bindings < 1 || size.members < 2) {
      throw new Error(`--sizes takes <bindings>x<members>,… with at least 2 members, got "${part}"`);
    }
    return size;
  });
}

/** A phase line (`setup bindings=10000 …`) as its phase and fields. */
function parsePhase(line: string): { readonly phase: string; readonly fields: Map<string, string> } {
  const [phase = '', ...pairs] = line.trim().split(/\s+/);
  const fields = new Map<string, string>();
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i > 0) fields.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return { phase, fields };
}

type Phases = Map<string, Map<string, string>>;

/** Runs `script` once for the size; its phase lines by phase. Its log goes through. */
async function runOne(script: string, size: Size, nodeArgs: readonly string[]): Promise<Phases> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, script, `--bindings=${size.bindings}`, `--members=${size.members}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const phases: Phases = new Map();
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    process.stdout.write(chunk);
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const { phase, fields } = parsePhase(line);
      if (phase !== '') phases.set(phase, fields);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0)
    throw new Error(`the run at ${size.bindings} bindings / ${size.members} members exited ${code}`);
  return phases;
}

/** One row of the table: a label and how to read it from a run's phases. */
interface Row {
  readonly label: string;
  readonly value: (p: Phases, size: Size) => string;
}

const field = (p: Phases, phase: string, name: string): number => Number(p.get(phase)?.get(name) ?? NaN);
const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const whole = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');

const ROWS: readonly Row[] = [
  { label: 'placement, bindings/s', value: (p) => fixed(field(p, 'setup', 'bindings_per_s')) },
  { label: 'API floor, bindings/s', value: (p) => fixed(field(p, 'floor', 'bindings_per_s')) },
  { label: 'placement / floor', value: (p) => fixed(field(p, 'floor', 'placement_to_floor'), 2) },
  { label: 'reconciles per binding', value: (p) => fixed(field(p, 'setup', 'reconciles_per_binding')) },
  {
    label: '  of them, by the binding controllers',
    value: (p) => fixed(field(p, 'setup', 'of_binding_controllers')),
  },
  {
    label: 'placement CPU, ms per binding',
    value: (p, s) => fixed((field(p, 'setup', 'controlplane_cpu_s') * 1000) / s.bindings),
  },
  { label: 'RSS settled, MiB', value: (p) => whole(field(p, 'memory', 'controlplane_rss_mib')) },
  { label: 'RSS peak, MiB', value: (p) => whole(field(p, 'memory', 'controlplane_peak_rss_mib')) },
  { label: 'heap used, MiB', value: (p) => whole(field(p, 'memory', 'controlplane_heap_mib')) },
  {
    label: 'RSS settled, KiB per binding',
    value: (p, s) => fixed((field(p, 'memory', 'controlplane_rss_mib') * 1024) / s.bindings),
  },
  { label: 'kube-apiserver RSS, MiB', value: (p) => whole(field(p, 'memory', 'kube_apiserver_rss_mib')) },
  { label: 'restart: /readyz, s', value: (p) => fixed(field(p, 'restart', 'readyz_s')) },
  { label: 'restart: cold-list floor, s', value: (p) => fixed(field(p, 'restart', 'list_floor_s')) },
  {
    label: 'restart: cold-list floor again, s',
    value: (p) => fixed(field(p, 'restart', 'list_floor_again_s')),
  },
  {
    label: 'restart: /readyz / cold-list floor',
    value: (p) => fixed(field(p, 'restart', 'readyz_to_list_floor')),
  },
  {
    label: 'restart: first decision after /readyz, s',
    value: (p) => fixed(field(p, 'restart', 'new_works_s') - field(p, 'restart', 'readyz_s')),
  },
  { label: 'restart: idle, s', value: (p) => fixed(field(p, 'restart', 'idle_s')) },
  { label: 'restart: API writes', value: (p) => whole(field(p, 'restart', 'api_writes')) },
  { label: 'lost member: bindings on it', value: (p) => whole(field(p, 'lost', 'bindings_on_it')) },
  { label: 'lost member: all off it, s', value: (p) => fixed(field(p, 'lost', 'all_moved_s')) },
  { label: 'lost member: eviction pace floor, s', value: (p) => fixed(field(p, 'lost', 'pace_floor_s')) },
];

/** The runs side by side as a Markdown table. */
function costCurveTable(sizes: readonly Size[], runs: readonly Phases[]): string {
  const header = ['', ...sizes.map((s) => `${whole(s.bindings)} / ${whole(s.members)}`)];
  const lines = [header, header.map(() => '---')];
  for (const row of ROWS) {
    lines.push([row.label, ...runs.map((p, i) => (sizes[i] === undefined ? '–' : row.value(p, sizes[i])))]);
  }
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** Runs every size, one after another, and prints the table. */
export async function runCostCurve(script: string, sizes: readonly Size[]): Promise<void> {
  const runs: Phases[] = [];
  for (const size of sizes) runs.push(await runOne(script, size, process.execArgv));
  process.stdout.write(`\ncost curve (bindings / members)\n${costCurveTable(sizes, runs)}\n`);
}
