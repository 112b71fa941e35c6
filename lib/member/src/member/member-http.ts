/**
 * Plain GETs against the member API server (health endpoints, /version, discovery) over undici,
 * with the member kubeconfig's credentials and a deadline on every call.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeTransport, getJson, getText, type GetJsonOptions, type TextResponse } from '@kf/kube';

export type GetOptions = GetJsonOptions;
export type { TextResponse };

/** Five seconds: a healthy API server answers /readyz in milliseconds; a hung one must not stall a sync. */
export const DEFAULT_MEMBER_GET_TIMEOUT_MS = 5_000;

export class MemberHttp {
  private readonly transport: KubeTransport;

  constructor(kc: KubeConfig) {
    // Three seconds to connect: loopback or in-cluster, anything slower is already a failure.
    this.transport = new KubeTransport(kc, { connectTimeoutMs: 3_000 });
  }

  /** Any HTTP answer (whatever its status); throws a KubeError when there is none. */
  get(path: string, opts: GetOptions = {}): Promise<TextResponse> {
    return getText(this.transport, path, { timeoutMs: DEFAULT_MEMBER_GET_TIMEOUT_MS, ...opts });
  }

  /** The JSON body of a 2xx answer; any other status is a KubeError. */
  async getJson<T>(path: string, opts: GetOptions = {}): Promise<T> {
    return (await getJson(this.transport, path, { timeoutMs: DEFAULT_MEMBER_GET_TIMEOUT_MS, ...opts })) as T;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
