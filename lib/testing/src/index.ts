export * from './types.ts';
export { kubeBinaries, REPO_ROOT, type KubeBinaries } from './binaries.ts';
export { LocalCluster, type ClusterRole } from './cluster.ts';
export { installCrds, CRD_DIR } from './crds.ts';
export { createKwokNodes, kwokNode, DEFAULT_NODE_CAPACITY, type NodeCapacity } from './kwok-nodes.ts';
export {
  startControlPlane,
  startMember,
  startFederation,
  killRun,
  type LocalFederation,
} from './federation.ts';
export { newRunDir, removeRunDir } from './run-dir.ts';
export { ManagedProcess, type ProcessSpec } from './process.ts';
export { freePort } from './ports.ts';
export { waitUntil, httpsStatus } from './readiness.ts';
export { demoDeployment, rollOut } from './rollout.ts';
