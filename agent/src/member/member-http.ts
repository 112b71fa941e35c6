/**
 * Plain GETs against the member API server (health endpoints, /version, discovery) over undici,
 * with the member kubeconfig's credentials and a deadline on every call.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeTransport, kubeErrorFromResponse, toKubeError } from '@kf/kube';
import { request } from 'undici';

export interface GetOptions {
  readonly accept?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface TextResponse {
  readonly status: number;
  readonly body: string;
}

/** Five seconds: a healthy API server answers /readyz in milliseconds; a hung one must not stall a sync. */
export const DEFAULT_MEMBER_GET_TIMEOUT_MS = 5_000;

export class MemberHttp {
  private readonly transport: KubeTransport;

  constructor(kc: KubeConfig) {
    // Three seconds to connect: loopback or in-cluster, anything slower is already a failure.
    this.transport = new KubeTransport(kc, { connectTimeoutMs: 3_000 });
  }

  /** Any HTTP answer (whatever its status); throws a KubeError when there is none. */
  async get(path: string, opts: GetOptions = {}): Promise<TextResponse> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_MEMBER_GET_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
    try {
      const conn = await this.transport.connect();
      const res = await request(`${conn.baseUrl}${path}`, {
        dispatcher: conn.dispatcher,
        headers: { ...conn.headers, accept: opts.accept ?? 'application/json' },
        signal: opts.signal === undefined ? deadline : AbortSignal.any([deadline, opts.signal]),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return { status: res.statusCode, body: await res.body.text() };
    } catch (err: unknown) {
      throw toKubeError(err);
    }
  }

  /** The JSON body of a 200 answer; any other status is a KubeError. */
  async getJson<T>(path: string, opts: GetOptions = {}): Promise<T> {
    const res = await this.get(path, opts);
    if (res.status !== 200) throw kubeErrorFromResponse(res.status, res.body);
    return JSON.parse(res.body) as T;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
