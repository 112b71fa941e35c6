import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

async function openssl(args: readonly string[], cwd: string): Promise<void> {
  await execFileAsync('openssl', args, { cwd });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Files of one cluster's PKI, all in one folder. */
export interface ClusterPki {
  readonly dir: string;
  readonly caCert: string;
  readonly caKey: string;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
}

/**
 * Creates (once, in `dir`, made if missing) a CA, an API server serving certificate for
 * 127.0.0.1/localhost and the service account signing key pair. Kept on disk so that a restarted
 * cluster keeps its identity.
 */
export async function ensureClusterPki(dir: string): Promise<ClusterPki> {
  const pki: ClusterPki = {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
  if (await exists(pki.servingCert)) return pki;
  await mkdir(dir, { recursive: true });
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', pki.caKey], dir);
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      pki.caKey,
      '-subj',
      '/CN=kf-local-ca',
      '-days',
      '3650',
      '-out',
      pki.caCert,
    ],
    dir,
  );
  const ext = join(dir, 'serving.ext');
  await writeServingExtension(ext, [
    'IP:127.0.0.1',
    'IP:10.96.0.1',
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
  ]);
  await issue(pki, { cn: 'kube-apiserver', extFile: ext, cert: pki.servingCert, key: pki.servingKey });
  await openssl(['genrsa', '-out', pki.serviceAccountKey, '2048'], dir);
  await openssl(['rsa', '-in', pki.serviceAccountKey, '-pubout', '-out', pki.serviceAccountPub], dir);
  return pki;
}

/** The x509 extensions of a server certificate for the given subject alternative names. */
async function writeServingExtension(path: string, sans: readonly string[]): Promise<void> {
  await writeFile(
    path,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${sans.join(',')}`,
      '',
    ].join('\n'),
  );
}

interface IssueRequest {
  readonly cn: string;
  readonly orgs?: readonly string[];
  readonly extFile: string;
  readonly cert: string;
  readonly key: string;
}

async function issue(pki: ClusterPki, req: IssueRequest): Promise<void> {
  const csr = `${req.cert}.csr`;
  const subject = `/CN=${req.cn}${(req.orgs ?? []).map((o) => `/O=${o}`).join('')}`;
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', req.key], pki.dir);
  await openssl(['req', '-new', '-key', req.key, '-subj', subject, '-out', csr], pki.dir);
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      pki.caCert,
      '-CAkey',
      pki.caKey,
      '-CAcreateserial',
      '-days',
      '3650',
      '-extfile',
      req.extFile,
      '-out',
      req.cert,
    ],
    pki.dir,
  );
}

/** Issues a client certificate for `user` in `groups`; returns the cert and key paths. */
export async function issueClientCert(
  pki: ClusterPki,
  user: string,
  groups: readonly string[],
): Promise<{ cert: string; key: string }> {
  const base = join(pki.dir, `client-${user.replace(/[^a-zA-Z0-9_.-]/g, '_')}`);
  const paths = { cert: `${base}.crt`, key: `${base}.key` };
  if (await exists(paths.cert)) return paths;
  const ext = join(pki.dir, 'client.ext');
  await writeFile(ext, 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n');
  await issue(pki, { cn: user, orgs: groups, extFile: ext, ...paths });
  return paths;
}

/**
 * Issues a serving certificate signed by the cluster's CA for the given DNS names (and 127.0.0.1),
 * for a server the API server calls: an aggregated API server, an admission webhook.
 */
export async function issueServingCert(
  pki: ClusterPki,
  name: string,
  dnsNames: readonly string[],
): Promise<{ cert: string; key: string }> {
  const base = join(pki.dir, `serving-${name.replace(/[^a-zA-Z0-9_.-]/g, '_')}`);
  const paths = { cert: `${base}.crt`, key: `${base}.key` };
  if (await exists(paths.cert)) return paths;
  const ext = `${base}.ext`;
  await writeServingExtension(ext, ['IP:127.0.0.1', ...dnsNames.map((d) => `DNS:${d}`)]);
  await issue(pki, { cn: name, extFile: ext, ...paths });
  return paths;
}
