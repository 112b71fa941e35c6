/** `npm run build -w @kf/probe`: writes probe/dist/probe.mjs (see bundle.ts). */
import { PROBE_BUNDLE, PROBE_NODE_FLAGS, bundleProbe } from './bundle.ts';

const { outfile, bytes } = await bundleProbe(process.argv[2] ?? PROBE_BUNDLE);
console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB`);
console.log(`run it with: node ${PROBE_NODE_FLAGS.join(' ')} ${outfile} --host-name=... ...`);
