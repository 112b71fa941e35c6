/** The same I/O with API calls through undici, as bundled in the probe (HTTP/2, or 1.1 with FLOOR_HTTP=1). */
import { Agent, request } from 'undici';
import { env, runRounds } from './io.ts';

const dispatcher = new Agent({ connect: { ca: env.ca }, allowH2: !env.http1 });
runRounds(() => Promise.all(env.urls.map(async (url) => (await request(url, { dispatcher })).body.json())));
