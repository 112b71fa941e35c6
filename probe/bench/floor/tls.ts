/** Node and one TLS context, as any API client makes (OpenSSL initialised, the CA loaded). */
import { createSecureContext } from 'node:tls';
import { env } from './io.ts';

const context = createSecureContext({ ca: env.ca });
setInterval(() => context, 1_000);
