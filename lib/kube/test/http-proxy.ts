/** A small HTTP proxy for tests of clusters behind a `proxy-url`. */
import { once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** Has `proxy` tunnel every CONNECT to its target, recording the `host:port` of each in `tunnelled`. */
export function tunnelConnects(proxy: Server, tunnelled: string[]): void {
  proxy.on('connect', (req: IncomingMessage, client: Duplex) => {
    tunnelled.push(req.url ?? '');
    const [host = '', port = ''] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
}

/** Listens on a free loopback port; the port. */
export async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Closes the server and every connection it holds. */
export async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
}
