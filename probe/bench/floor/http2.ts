/** The probe's I/O with Node's modules alone: API calls over node:http2, no HTTP library. */
import { connect } from 'node:http2';
import { env, runRounds } from './io.ts';

const session = connect(env.url, { ca: env.ca });
const { pathname } = new URL(env.url);
runRounds(
  () =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':path': pathname });
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
    }),
);
