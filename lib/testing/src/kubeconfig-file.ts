import { readFile, writeFile } from 'node:fs/promises';

export interface KubeconfigParts {
  readonly clusterName: string;
  readonly server: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly user: string;
}

const b64 = async (path: string): Promise<string> => (await readFile(path)).toString('base64');

/** Writes a self-contained kubeconfig (certificates embedded) with one context. */
export async function writeKubeconfig(path: string, parts: KubeconfigParts): Promise<void> {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${parts.clusterName}`,
    '  cluster:',
    `    server: ${parts.server}`,
    `    certificate-authority-data: ${await b64(parts.caFile)}`,
    'users:',
    `- name: ${parts.user}`,
    '  user:',
    `    client-certificate-data: ${await b64(parts.certFile)}`,
    `    client-key-data: ${await b64(parts.keyFile)}`,
    'contexts:',
    `- name: ${parts.clusterName}`,
    '  context:',
    `    cluster: ${parts.clusterName}`,
    `    user: ${parts.user}`,
    `current-context: ${parts.clusterName}`,
    '',
  ].join('\n');
  await writeFile(path, text, { mode: 0o600 });
}
