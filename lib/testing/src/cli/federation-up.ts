import { CoreV1Api } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startFederation } from '../federation.ts';
import { demoDeployment, rollOut } from '../rollout.ts';
import { Timeline } from './timeline.ts';

const execFileAsync = promisify(execFile);

export interface UpOptions {
  readonly members: number;
  readonly nodes: number;
  readonly runDir?: string;
  readonly keep: boolean;
  /** Where progress lines go (the terminal, from main). */
  readonly print: (line: string) => void;
}

/** Brings a federation up, proves each member runs workloads, and tears it down unless asked to keep it. */
export async function runFederationUp(opts: UpOptions): Promise<void> {
  const { print } = opts;
  const timeline = new Timeline(print);
  timeline.mark('starting control plane and members');
  const fed = await startFederation({
    members: opts.members,
    member: { nodes: opts.nodes },
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
  });
  try {
    timeline.mark(`federation up in ${fed.runDir}`);
    const { stdout } = await execFileAsync(
      fed.controlPlane.kubectlPath,
      fed.controlPlane.kubectlArgs('get', 'crds', '-o', 'custom-columns=NAME:.metadata.name', '--no-headers'),
    );
    const crds = stdout.split('\n').filter((l) => l !== '');
    timeline.mark(`control plane ${fed.controlPlane.server}: ${crds.length} CRDs established`);
    for (const member of fed.members) {
      const nodes = await member.kubeConfig().makeApiClient(CoreV1Api).listNode();
      const ready = nodes.items.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      timeline.mark(`${member.name} ${member.server}: ${ready.length}/${nodes.items.length} nodes Ready`);
      const d = await rollOut(member.kubeConfig(), demoDeployment('nginx', 3));
      timeline.mark(
        `${member.name}: Deployment nginx ${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0} ready`,
      );
    }
    print('');
    print(`control plane kubeconfig: ${fed.controlPlane.kubeconfigPath}`);
    for (const m of fed.members) print(`${m.name} kubeconfig: ${m.kubeconfigPath}`);
    if (opts.keep) {
      print(`kubectl: ${fed.controlPlane.kubectlPath}`);
      print('running; press Ctrl-C to stop');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
  } finally {
    timeline.mark('tearing down');
    await fed.destroy();
    timeline.mark('all processes stopped');
  }
}
