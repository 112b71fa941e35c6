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
  if (await exists(pki.servingCert)) {
    // A folder made before the CA kept a database: later client certificates need one.
    if (!(await exists(join(dir, 'ca.cnf')))) await writeCaDatabase(dir);
    return pki;
  }
  await mkdir(dir, { recursive: true });
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', pki.caKey], dir);
  await writeCaDatabase(dir);
  const caCsr = `${pki.caCert}.csr`;
  await openssl(['req', '-new', '-key', pki.caKey, '-subj', '/CN=kf-local-ca', '-out', caCsr], dir);
  await sign(pki, ['-selfsign', '-in', caCsr, '-out', pki.caCert, '-extensions', 'ca_extensions']);
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
  await sign(pki, ['-cert', pki.caCert, '-in', csr, '-extfile', req.extFile, '-out', req.cert]);
}

/**
 * Certificates are valid from this long before they are issued. A process whose clock runs behind
 * the host's (a member agent run with a clock offset, clock-offset.ts) checks the API servers'
 * certificates and their CA against its own clock: issued "now", they would not be valid yet for
 * it, and its every TLS handshake would fail. An hour covers any offset the harness accepts.
 */
const BACKDATE_MS = 60 * 60 * 1000;
const VALID_DAYS = '3650';

/**
 * `openssl ca`, not `openssl x509 -req`: only it sets notBefore (-startdate) in OpenSSL 3.0. It
 * keeps a small database of what it issued in the PKI folder (ca-db/).
 */
async function writeCaDatabase(dir: string): Promise<void> {
  const db = join(dir, 'ca-db');
  await mkdir(db, { recursive: true });
  await writeFile(join(db, 'index.txt'), '');
  await writeFile(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = local',
      '[local]',
      `database = ${join(db, 'index.txt')}`,
      `new_certs_dir = ${db}`,
      `serial = ${join(db, 'serial')}`,
      'default_md = sha256',
      'policy = anything',
      // The subject as the request has it: user in CN, groups in O, in that order.
      'preserve = yes',
      'unique_subject = no',
      'email_in_dn = no',
      '[anything]',
      'commonName = supplied',
      'organizationName = optional',
      '[ca_extensions]',
      'basicConstraints = critical,CA:TRUE',
      'keyUsage = critical,digitalSignature,keyCertSign,cRLSign',
      'subjectKeyIdentifier = hash',
      '',
    ].join('\n'),
  );
}

/** Signings in progress per PKI folder: `openssl ca` rewrites its database, one at a time. */
const signing = new Map<string, Promise<unknown>>();

/** Signs with the PKI's CA key, backdated by {@link BACKDATE_MS}, valid ten years. */
async function sign(pki: ClusterPki, args: readonly string[]): Promise<void> {
  const startDate = new Date(Date.now() - BACKDATE_MS).toISOString().replace(/[-:T]|\.\d+/g, '');
  const run = (signing.get(pki.dir) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() =>
      openssl(
        [
          'ca',
          '-batch',
          '-notext',
          '-rand_serial',
          '-config',
          join(pki.dir, 'ca.cnf'),
          '-keyfile',
          pki.caKey,
          '-startdate',
          startDate,
          '-days',
          VALID_DAYS,
          ...args,
        ],
        pki.dir,
      ),
    );
  signing.set(pki.dir, run);
  try {
    await run;
  } finally {
    if (signing.get(pki.dir) === run) signing.delete(pki.dir);
  }
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
