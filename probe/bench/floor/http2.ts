/** The probe's I/O with Node's modules alone: API calls over node:http2, no HTTP library. */
import { connect, type ClientHttp2Session } from 'node:http2';
import { env, runRounds } from './io.ts';

function get(session: ClientHttp2Session, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      body += chunk;
    });
    stream.on('end', () => {
      resolve(JSON.parse(body));
    });
    stream.on('error', reject);
    stream.end();
  });
}

const servers = env.urls.map((url) => ({
  session: connect(url, { ca: env.ca }),
  path: new URL(url).pathname,
}));
runRounds(() => Promise.all(servers.map((s) => get(s.session, s.path))));
