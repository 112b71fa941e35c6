/**
 * The V8 settings the control plane runs with, in its container and wherever the project starts
 * it (the test harness and the benchmarks measure the process as deployed). Its work is unlike the
 * agent's: caches of every binding, Work and template of the federation (tens of MiB of live
 * objects at 10,000 bindings), and a stream of short-lived garbage while it places and moves them.
 * Left to its defaults V8 sizes the heap for speed on a large machine, and at 2,000 bindings over
 * 20 members (`controlplane/bench/scale.bench.ts`) the process settled at 576 MiB of RSS for
 * 110 MiB of live objects:
 * - `--max-semi-space-size=8`: an 8 MiB semi-space (16 MiB of young generation) instead of the
 *   64 MiB one V8 picks on a machine of this size. 16 MiB took 150 MiB off the RSS at no
 *   measurable CPU; 8 MiB, once the process compacted its heap when idle (`--idle-heap-compaction`),
 *   another 13 MiB at 10,000 bindings over 100 members (248 → 235 MiB settled), CPU within the
 *   spread of runs;
 * - `--heap-growing-percent=50`: a full collection once the old generation has grown by half of
 *   what survived the last one, where V8 lets it grow up to fourfold while it allocates fast;
 *   another 100 MiB less, for a few percent more CPU.
 * Both together: 319 MiB settled in the same run, placement as fast. `--optimize-for-size` (the
 * agent's) saves more (225 MiB) but costs the control plane twice the CPU and a tenth of its
 * placement rate, so it is left out, as is `--liftoff-only`: the control plane runs resource
 * interpreter scripts for every binding of a custom kind, and its Lua VM is WebAssembly.
 * The old generation keeps V8's limit: a larger fleet must cost memory, not crash the process.
 * They belong on the command line: V8 sizes its young generation when the process starts.
 */
export const CONTROLPLANE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=50',
];
