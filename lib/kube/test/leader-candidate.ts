/**
 * One leader-election candidate as its own process, for the integration tests:
 *   node leader-candidate.ts <kubeconfig> <namespace> <lease> <identity> <timings JSON>
 * Prints one JSON object per line on stdout: started, leading, work-started, work-stopped,
 * not-leading, exited. SIGTERM stops it gracefully (the lease is released).
 */
import { createLogger } from '@kf/runtime';
import { LeaderElector, loadKubeConfig } from '../src/index.ts';

const [kubeconfig = '', namespace = '', name = '', identity = '', timings = '{}'] = process.argv.slice(2);

function say(event: string): void {
  process.stdout.write(`${JSON.stringify({ event, identity })}\n`);
}

const stop = new AbortController();
process.once('SIGTERM', () => {
  stop.abort();
});

const elector = new LeaderElector({
  kubeConfig: loadKubeConfig({ path: kubeconfig }),
  namespace,
  name,
  identity,
  ...(JSON.parse(timings) as Record<string, number>),
  log: createLogger({ component: 'leader-candidate', level: 'warn', destination: process.stderr }),
  onChange: (leader) => {
    say(leader ? 'leading' : 'not-leading');
  },
});

say('started');
await elector.run(stop.signal, async (term) => {
  say('work-started');
  await new Promise<void>((resolve) => {
    term.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
  say('work-stopped');
});
say('exited');
