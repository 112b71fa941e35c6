import { newRunDir, removeRunDir, startControlPlane, type LocalCluster } from '@kf/testing';

/** A kube-apiserver + etcd on loopback for one test file, and how to get rid of it. */
export interface TestControlPlane {
  readonly cluster: LocalCluster;
  destroy(): Promise<void>;
}

export async function startTestControlPlane(prefix: string): Promise<TestControlPlane> {
  const runDir = await newRunDir(prefix);
  const cluster = await startControlPlane({ runDir, installCrds: false });
  return {
    cluster,
    destroy: async () => {
      await cluster.stop();
      await removeRunDir(runDir);
    },
  };
}

/** A namespace for one test, so that tests in a file do not see each other's objects. */
export function testNamespace(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}
