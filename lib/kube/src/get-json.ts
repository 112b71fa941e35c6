/** A GET of any API server path (discovery documents, `/version`) as plain JSON. */
import { request } from 'undici';
import { kubeErrorFromResponse, toKubeError } from './errors.ts';
import { DEFAULT_API_TIMEOUT_MS } from './kubeconfig.ts';
import type { KubeTransport } from './transport.ts';

export interface GetJsonOptions {
  readonly signal?: AbortSignal;
  /** Deadline of the call, body included (default 30 s). */
  readonly timeoutMs?: number;
}

/** The JSON body at `path` (e.g. `/apis/apps/v1`); every failure, 404 included, is a KubeError. */
export async function getJson(
  transport: KubeTransport,
  path: string,
  opts: GetJsonOptions = {},
): Promise<unknown> {
  const signals = [AbortSignal.timeout(Math.max(1, Math.ceil(opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS)))];
  if (opts.signal !== undefined) signals.push(opts.signal);
  try {
    const conn = await transport.connect();
    const res = await request(`${conn.baseUrl}${path}`, {
      method: 'GET',
      dispatcher: conn.dispatcher,
      headers: { ...conn.headers, accept: 'application/json', 'user-agent': 'karmada-failover' },
      signal: AbortSignal.any(signals),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw kubeErrorFromResponse(res.statusCode, text, res.headers);
    }
    return JSON.parse(text) as unknown;
  } catch (err: unknown) {
    throw toKubeError(err);
  }
}
