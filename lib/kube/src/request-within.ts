import { request, type Dispatcher } from 'undici';

type RequestOptions = Parameters<typeof request>[1];

/**
 * undici's `request`, settled as soon as its signal aborts, whether or not the request is on a
 * connection yet. undici honours an abort only once the request goes out: one waiting for a
 * connection still being made (a TLS handshake into a link that swallows everything, after a
 * silent connection was given up) would otherwise outlive its deadline by up to the connect
 * timeout, and a heartbeat whose attempts must end by their deadlines would fall behind. What
 * the request brings after that is thrown away.
 */
export async function requestWithin(
  url: string,
  options: NonNullable<RequestOptions>,
): Promise<Dispatcher.ResponseData<unknown>> {
  const pending = request(url, options);
  const signal = options.signal;
  if (!(signal instanceof AbortSignal)) return pending;
  return new Promise<Dispatcher.ResponseData<unknown>>((resolve, reject) => {
    let abandoned = false;
    const onAbort = (): void => {
      abandoned = true;
      reject(signal.reason as Error);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        if (abandoned) res.body.destroy();
        else resolve(res);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!abandoned) reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
