/** `npm run build -w @kf/agent`: writes agent/dist/agent.mjs (see bundle.ts). */
import { AGENT_BUNDLE, PRODUCTION_NODE_FLAGS, bundleAgent } from './bundle.ts';

const { outfile, bytes } = await bundleAgent(process.argv[2] ?? AGENT_BUNDLE);
console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB`);
console.log(`run it with: node ${PRODUCTION_NODE_FLAGS.join(' ')} ${outfile} run ...`);
