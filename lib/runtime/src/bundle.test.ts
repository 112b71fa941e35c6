import { describe, expect, it } from 'vitest';
import { PRODUCTION_NODE_FLAGS, webAssemblyProblem } from './bundle.ts';

/**
 * undici's HTTP/1.1 parser is WebAssembly: the processes' production flags (the agent's as they
 * are, the probe's built on them) must leave it on, or every API call to a server or proxy
 * without HTTP/2 fails while tests against kube-apiserver (HTTP/2) pass.
 */
describe('production Node flags', () => {
  it('keep WebAssembly', async () => {
    expect(await webAssemblyProblem(PRODUCTION_NODE_FLAGS)).toBeUndefined();
  });

  it('would be caught turning it off, as --lite-mode and --jitless do', async () => {
    expect(await webAssemblyProblem([...PRODUCTION_NODE_FLAGS, '--lite-mode'])).toMatch(
      /WebAssembly is not defined/,
    );
    expect(await webAssemblyProblem(['--jitless'])).toMatch(/WebAssembly is not defined/);
  });
});
