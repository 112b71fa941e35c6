/**
 * Fields of a resource template that the control plane's API server filled in for its own use and
 * that must not reach a member cluster, where they would be wrong or refused:
 * - a Service's cluster IPs belong to the control plane's service range; the member allocates its
 *   own (a headless Service's `None` is the user's choice and stays);
 * - a Job's generated selector and the `controller-uid` / `job-name` labels it matches point at
 *   the control plane's Job uid, which the member's API server rejects (unless the user set
 *   `manualSelector`); `ttlSecondsAfterFinished` would let the member delete a Job the control
 *   plane still propagates, so it would be created again;
 * - a ServiceAccount's `<name>-token-*` secrets exist only in the control plane.
 * Pure: the caller passes a JSON object and gets a new one.
 */

type Json = Readonly<Record<string, unknown>>;

const JOB_GENERATED_LABELS = [
  'controller-uid',
  'job-name',
  'batch.kubernetes.io/controller-uid',
  'batch.kubernetes.io/job-name',
] as const;

const record = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const without = (o: Json, keys: readonly string[]): Json =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** `manifest` without what only makes sense in the control plane (see the module comment). */
export function withoutControlPlaneFields(manifest: Json): Json {
  const group = text(manifest['apiVersion']);
  const kind = manifest['kind'];
  if (group === 'v1' && kind === 'Service') return serviceForMember(manifest);
  if (group === 'batch/v1' && kind === 'Job') return jobForMember(manifest);
  if (group === 'v1' && kind === 'ServiceAccount') return serviceAccountForMember(manifest);
  return manifest;
}

function serviceForMember(service: Json): Json {
  const spec = record(service['spec']);
  if (spec === undefined || spec['clusterIP'] === 'None') return service;
  return { ...service, spec: without(spec, ['clusterIP', 'clusterIPs']) };
}

function jobForMember(job: Json): Json {
  const spec = record(job['spec']);
  if (spec === undefined) return job;
  const kept = without(spec, ['ttlSecondsAfterFinished']);
  if (spec['manualSelector'] === true) return { ...job, spec: kept };
  const template = record(spec['template']);
  const templateMetadata = record(template?.['metadata']);
  const templateLabels = record(templateMetadata?.['labels']);
  const prunedTemplate =
    template === undefined || templateMetadata === undefined || templateLabels === undefined
      ? template
      : {
          ...template,
          metadata: { ...templateMetadata, labels: without(templateLabels, JOB_GENERATED_LABELS) },
        };
  return {
    ...job,
    spec: {
      ...without(kept, ['selector', 'template']),
      ...(prunedTemplate === undefined ? {} : { template: prunedTemplate }),
    },
  };
}

function serviceAccountForMember(account: Json): Json {
  const secrets = account['secrets'];
  if (!Array.isArray(secrets)) return account;
  const tokenPrefix = `${text(record(account['metadata'])?.['name'])}-token-`;
  const kept = secrets.filter((s) => !text(record(s)?.['name']).startsWith(tokenPrefix));
  return { ...account, secrets: kept };
}
