import { startFailoverFederation } from '../failover-federation.ts';
import { FaultControlServer, faultSocketPath } from '../faults/fault-control.ts';
import { Timeline } from './timeline.ts';

export interface FailoverUpOptions {
  readonly members: number;
  readonly nodes: number;
  readonly runDir?: string;
  /** Print kubeconfigs and wait for Ctrl-C before tearing down. */
  readonly keep: boolean;
  readonly print: (line: string) => void;
}

/**
 * Brings up the failover federation (clusters, member agents, control plane with `--failover`,
 * default ClusterTaintPolicy), waits until every Cluster is Ready, and tears it down unless asked
 * to keep it; kept, it serves `federation faults …` on a socket in its run folder.
 */
export async function runFailoverUp(opts: FailoverUpOptions): Promise<void> {
  const { print } = opts;
  const timeline = new Timeline(print);
  timeline.mark('starting clusters, member agents and the control plane');
  const fed = await startFailoverFederation({
    members: opts.members,
    nodes: opts.nodes,
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
  });
  try {
    timeline.mark(`every Cluster Ready and untainted (${fed.runDir})`);
    for (const name of fed.memberNames) {
      const cluster = await fed.clusters.get(name);
      timeline.mark(`${name}: ${cluster.spec.syncMode} ${cluster.status?.kubernetesVersion ?? ''}`.trim());
    }
    print('');
    print(`control plane kubeconfig: ${fed.federation.controlPlane.kubeconfigPath}`);
    for (const m of fed.federation.members) print(`${m.name} kubeconfig: ${m.kubeconfigPath}`);
    print(`logs (agents, control plane): ${fed.runDir}/logs`);
    print(`metrics: ${fed.controlPlaneUrl}/metrics`);
    if (opts.keep) {
      const faults = await FaultControlServer.start(faultSocketPath(fed.runDir), fed, {
        onError: (err) => {
          print(`a timed fault could not be undone: ${err instanceof Error ? err.message : String(err)}`);
        },
      });
      print(`links (proxied): ${fed.links.names().join(', ')}`);
      print(
        `faults: node lib/testing/src/cli/federation-main.ts faults cut --run-dir ${fed.runDir} ` +
          `--link agent:${fed.memberNames[0] ?? 'member1'} --for 15s`,
      );
      print('running; press Ctrl-C to stop');
      try {
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
      } finally {
        await faults.close();
      }
    }
  } finally {
    timeline.mark('tearing down');
    await fed.destroy();
    timeline.mark('all processes stopped');
  }
}
