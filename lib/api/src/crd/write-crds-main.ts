/**
 * Writes deploy/crds/<group>_<plural>.yaml from the schemas in this folder and removes CRD
 * files that no kind produces any more. Usage: node lib/api/src/crd/write-crds-main.ts
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crdFileName, customResourceDefinitions, renderCrdFile } from './index.ts';

const crdDir = join(import.meta.dirname, '..', '..', '..', '..', 'deploy', 'crds');

async function main(): Promise<void> {
  const wanted = new Map(customResourceDefinitions().map((crd) => [crdFileName(crd), renderCrdFile(crd)]));
  for (const [file, text] of wanted) {
    await writeFile(join(crdDir, file), text);
  }
  for (const file of await readdir(crdDir)) {
    if (file.endsWith('.yaml') && !wanted.has(file)) await rm(join(crdDir, file));
  }
  console.log(`wrote ${wanted.size} CRDs to ${crdDir}`);
}

await main();
