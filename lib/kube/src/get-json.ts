/**
 * Plain GETs of any API server path (health endpoints, `/version`, discovery documents) over a
 * KubeTransport, with a deadline on the whole call, body included.
 */
import { callDeadline } from './call-deadline.ts';
import { requestWithin } from './request-within.ts';
import { kubeErrorFromResponse, toKubeError } from './errors.ts';
import { DEFAULT_API_TIMEOUT_MS } from './kubeconfig.ts';
import type { KubeTransport } from './transport.ts';

export interface GetJsonOptions {
  readonly signal?: AbortSignal;
  /** Deadline of the call, body included (default 30 s). */
  readonly timeoutMs?: number;
  /** The `accept` header (default `application/json`). */
  readonly accept?: string;
}

/** Any HTTP answer to a GET of `path`, whatever its status. */
export interface TextResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The answer to a GET of `path`, whatever its status; a KubeError when there is none. */
export async function getText(
  transport: KubeTransport,
  path: string,
  opts: GetJsonOptions = {},
): Promise<TextResponse> {
  const timeoutMs = Math.max(1, Math.ceil(opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS));
  const deadline = callDeadline(timeoutMs, opts.signal);
  try {
    const conn = await transport.connect();
    const res = await requestWithin(`${conn.baseUrl}${path}`, {
      method: 'GET',
      dispatcher: conn.dispatcher,
      headers: {
        ...conn.headers,
        accept: opts.accept ?? 'application/json',
        'user-agent': 'karmada-failover',
      },
      signal: deadline.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { status: res.statusCode, body: await res.body.text(), headers: res.headers };
  } catch (err: unknown) {
    throw toKubeError(err);
  } finally {
    deadline.release();
  }
}

/** The JSON body at `path` (e.g. `/apis/apps/v1`); every failure, 404 included, is a KubeError. */
export async function getJson(
  transport: KubeTransport,
  path: string,
  opts: GetJsonOptions = {},
): Promise<unknown> {
  const res = await getText(transport, path, opts);
  if (res.status < 200 || res.status > 299) throw kubeErrorFromResponse(res.status, res.body, res.headers);
  return JSON.parse(res.body) as unknown;
}
