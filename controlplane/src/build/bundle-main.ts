/** `npm run build -w @kf/controlplane`: writes controlplane/dist/controlplane.mjs (see bundle.ts). */
import { CONTROLPLANE_NODE_FLAGS } from '@kf/runtime';
import { CONTROLPLANE_BUNDLE, bundleControlPlane } from './bundle.ts';

const { outfile, bytes } = await bundleControlPlane(process.argv[2] ?? CONTROLPLANE_BUNDLE);
console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB`);
console.log(`run it with: node ${CONTROLPLANE_NODE_FLAGS.join(' ')} ${outfile} run ...`);
