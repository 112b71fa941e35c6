import type { KubeConfig } from '@kubernetes/client-node';

/** One Kubernetes API server (with its etcd) started on loopback by the harness. */
export interface ClusterHandle {
  /** 'karmada' for the control plane, 'member1'... for members. */
  readonly name: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig (system:masters) written in the run folder. */
  readonly kubeconfigPath: string;
  /** A fresh KubeConfig loaded from kubeconfigPath. */
  kubeConfig(): KubeConfig;
  /**
   * Writes a kubeconfig for a client certificate with the given user and groups (signed by the
   * cluster's CA) and returns its path; for tests of RBAC and least privilege.
   */
  userKubeconfig(user: string, groups?: readonly string[]): Promise<string>;
  /** Stops every process of this cluster (API server, etcd, controllers, kwok); data is kept. */
  stop(): Promise<void>;
  /** Starts it again after stop(), with the same data, port and certificates; waits for /readyz. */
  start(): Promise<void>;
  /** Stops and starts only the API server process (etcd keeps running). */
  restartApiServer(): Promise<void>;
  /** True while the API server process runs. */
  isRunning(): boolean;
  /** stop(), then delete the folder the harness made for it (unless KF_KEEP_RUNS=1). */
  destroy(): Promise<void>;
}

export interface MemberOptions {
  /** Number of KWOK fake nodes (default 2). */
  readonly nodes?: number;
  /** Allocatable per node (defaults: cpu '32', memory '256Gi', pods '110'). */
  readonly nodeCapacity?: { readonly cpu?: string; readonly memory?: string; readonly pods?: string };
}

export interface FederationOptions {
  /** Number of member clusters (default 2), named member1..memberN. */
  readonly members?: number;
  readonly member?: MemberOptions;
  /** Root folder for this run (default: a fresh folder under .run/). */
  readonly runDir?: string;
  /** Install the project's CRDs (deploy/crds) on the control plane and wait until Established (default true). */
  readonly installCrds?: boolean;
}

export interface Federation {
  readonly runDir: string;
  readonly controlPlane: ClusterHandle;
  readonly members: readonly ClusterHandle[];
  member(name: string): ClusterHandle;
  /** Stops every process started for this federation; leaves none behind. Data is kept. */
  stop(): Promise<void>;
  /** stop(), then delete the run folder if the harness made it (unless KF_KEEP_RUNS=1). */
  destroy(): Promise<void>;
}
