/** Probes the member API server the way upstream's agent does: /readyz, /healthz after a 404. */
import { toKubeError } from '@kf/kube';
import {
  needsHealthzFallback,
  type ProbeAnswer,
  type ProbeResult,
} from '../controllers/cluster-status/ready-condition.ts';
import type { MemberHttp } from './member-http.ts';

async function answer(http: MemberHttp, path: string, signal?: AbortSignal): Promise<ProbeAnswer> {
  try {
    const res = await http.get(path, { accept: 'text/plain', ...(signal === undefined ? {} : { signal }) });
    return { kind: 'status', status: res.status };
  } catch (err: unknown) {
    const e = toKubeError(err);
    return { kind: 'error', error: `${e.code}: ${e.message}` };
  }
}

export async function probeMemberHealth(http: MemberHttp, signal?: AbortSignal): Promise<ProbeResult> {
  const readyz = await answer(http, '/readyz', signal);
  if (!needsHealthzFallback(readyz)) return { readyz };
  return { readyz, healthz: await answer(http, '/healthz', signal) };
}
