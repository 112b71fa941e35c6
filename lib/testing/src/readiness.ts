import { readFile } from 'node:fs/promises';
import { request } from 'node:https';

export interface TlsFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** One GET over mutual TLS; resolves with the status code (0 when the connection failed). */
export async function httpsStatus(url: string, tls: TlsFiles, timeoutMs = 3_000): Promise<number> {
  const [ca, cert, key] = await Promise.all([
    readFile(tls.caFile),
    readFile(tls.certFile),
    readFile(tls.keyFile),
  ]);
  return new Promise((resolve) => {
    const req = request(url, { ca, cert, key, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      resolve(0);
    });
    req.end();
  });
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Checked on every round: a reason to give up early (e.g. the process died). */
  readonly abortIf?: () => string | undefined;
  /**
   * A probe that throws means "not yet" (a member's API server may be down on purpose) and the
   * timeout names the last error; otherwise the error fails the wait at once.
   */
  readonly retryErrors?: boolean;
}

/**
 * Polls `probe` until it returns true and returns when it first did (ms epoch); throws with
 * `what` after the timeout.
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  opts: WaitOptions,
): Promise<number> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    const reason = opts.abortIf?.();
    if (reason !== undefined) throw new Error(`${what}: ${reason}`);
    try {
      if (await probe()) return Date.now();
      last = undefined; // the timeout names the last look's error, not one long past
    } catch (err: unknown) {
      if (opts.retryErrors !== true) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const detail =
        last === undefined
          ? ''
          : ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})`;
      throw new Error(`${what}: not true after ${opts.timeoutMs} ms${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 250));
  }
}

/**
 * Polls `probe` every `intervalMs` until it holds and returns when it first did (ms epoch). An
 * error counts as "not yet"; after `timeoutMs` it fails naming `what` and the last error.
 */
export function eventually(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<number> {
  return waitUntil(what, probe, { timeoutMs, intervalMs, retryErrors: true });
}
