/**
 * Plain GETs against the member API server (health endpoints, /version, discovery) over undici,
 * with the member kubeconfig's credentials and a deadline on every call.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeError, KubeTransport, getJson, getText, type GetJsonOptions, type TextResponse } from '@kf/kube';

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
    return this.fresherAfterSilence(
      getText(this.transport, path, { timeoutMs: DEFAULT_MEMBER_GET_TIMEOUT_MS, ...opts }),
      opts.signal,
    );
  }

  /** The JSON body of a 2xx answer; any other status is a KubeError. */
  async getJson<T>(path: string, opts: GetOptions = {}): Promise<T> {
    const call = getJson(this.transport, path, { timeoutMs: DEFAULT_MEMBER_GET_TIMEOUT_MS, ...opts });
    return (await this.fresherAfterSilence(call, opts.signal)) as T;
  }

  /**
   * A call that got no answer by its deadline may have ridden a connection gone silent for good
   * (over HTTP/2 every call shares one). The PINGs give such a connection up only after three of
   * their intervals and two of the last round trips, which after a slow spell can outlast the
   * cluster's failure threshold: the health probe would ride the dead connection until Ready
   * turned False on a live member. So the next call connects afresh, at the cost of one handshake.
   */
  private async fresherAfterSilence<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await call;
    } catch (err: unknown) {
      if (unansweredByDeadline(err) && signal?.aborted !== true) this.transport.reconnect();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}

/** The call's own deadline passed with no answer (a 504 or 408 is an answer). */
function unansweredByDeadline(err: unknown): boolean {
  return err instanceof KubeError && err.code === 'Timeout' && err.status === undefined;
}
