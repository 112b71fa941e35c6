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
/** A double-quoted YAML scalar (JSON's string syntax is YAML's): names like `system:x:` stay names. */
function yamlString(value: string): string {
  return JSON.stringify(value);
}

export async function writeKubeconfig(path: string, parts: KubeconfigParts): Promise<void> {
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${yamlString(parts.clusterName)}`,
    '  cluster:',
    `    server: ${parts.server}`,
    `    certificate-authority-data: ${await b64(parts.caFile)}`,
    'users:',
    `- name: ${yamlString(parts.user)}`,
    '  user:',
    `    client-certificate-data: ${await b64(parts.certFile)}`,
    `    client-key-data: ${await b64(parts.keyFile)}`,
    'contexts:',
    `- name: ${yamlString(parts.clusterName)}`,
    '  context:',
    `    cluster: ${yamlString(parts.clusterName)}`,
    `    user: ${yamlString(parts.user)}`,
    `current-context: ${yamlString(parts.clusterName)}`,
    '',
  ].join('\n');
  await writeFile(path, text, { mode: 0o600 });
}

/**
 * Copies a kubeconfig written by writeKubeconfig with its server replaced: the same identity and
 * CA, reaching the API server another way (through a fault-injection proxy).
 */
export async function copyKubeconfigWithServer(from: string, to: string, server: string): Promise<void> {
  const text = await readFile(from, 'utf8');
  const servers = text.match(/^\s*server: .*$/gm) ?? [];
  if (servers.length !== 1) throw new Error(`${from}: expected one cluster server, found ${servers.length}`);
  await writeFile(to, text.replace(/^(\s*server: ).*$/m, `$1${server}`), { mode: 0o600 });
}
