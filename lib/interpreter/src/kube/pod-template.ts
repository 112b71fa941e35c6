/**
 * What Karmada reads from a pod template for the `kube` helpers: the requirements of one replica
 * (node claim and summed resource requests) and the objects the pod depends on.
 */
import type { JsonObject, JsonValue } from '../json.ts';
import { type Quantity, formatQuantity, parseQuantity, quantityOf, scaledValue } from './quantity.ts';

/** A pod template as decoded against podTemplateSchema (canonical JSON, zero values omitted). */
interface PodSpecView {
  readonly containers?: readonly ContainerView[];
  readonly initContainers?: readonly ContainerView[];
  readonly ephemeralContainers?: readonly ContainerView[];
  readonly overhead?: Readonly<Record<string, string>>;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly JsonObject[];
  readonly affinity?: {
    readonly nodeAffinity?: { readonly requiredDuringSchedulingIgnoredDuringExecution?: JsonObject };
  };
  readonly serviceAccountName?: string;
  readonly imagePullSecrets?: readonly Named[];
  readonly volumes?: readonly VolumeView[];
}

interface Named {
  readonly name?: string;
}

interface ContainerView {
  readonly resources?: {
    readonly limits?: Readonly<Record<string, string>>;
    readonly requests?: Readonly<Record<string, string>>;
  };
  readonly env?: readonly {
    readonly valueFrom?: { readonly configMapKeyRef?: Named; readonly secretKeyRef?: Named };
  }[];
  readonly envFrom?: readonly { readonly configMapRef?: Named; readonly secretRef?: Named }[];
}

interface VolumeView {
  readonly persistentVolumeClaim?: { readonly claimName: string };
  readonly configMap?: Named;
  readonly secret?: { readonly secretName?: string };
  readonly azureFile?: { readonly secretName: string };
  readonly projected?: {
    readonly sources: readonly { readonly secret?: Named; readonly configMap?: Named }[];
  };
  readonly csi?: { readonly nodePublishSecretRef?: Named };
  readonly [source: string]: unknown;
}

function specOf(template: JsonObject): PodSpecView {
  return (template.spec ?? {}) as PodSpecView;
}

/** The requirements of one replica, or null when the template asks for nothing. */
export function replicaRequirements(template: JsonObject): JsonObject | null {
  const spec = specOf(template);
  const nodeClaim = nodeClaimOf(spec);
  const resourceRequest = podRequests(spec).toResourceList();
  if (nodeClaim === undefined && resourceRequest === undefined) return null;
  const out: JsonObject = {};
  if (nodeClaim !== undefined) out.nodeClaim = nodeClaim;
  if (resourceRequest !== undefined) out.resourceRequest = resourceRequest;
  return out;
}

function nodeClaimOf(spec: PodSpecView): JsonObject | undefined {
  const hardNodeAffinity = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const tolerations = spec.tolerations ?? [];
  if (spec.nodeSelector === undefined && hardNodeAffinity === undefined && tolerations.length === 0)
    return undefined;
  const claim: JsonObject = {};
  if (hardNodeAffinity !== undefined) claim.hardNodeAffinity = hardNodeAffinity;
  if (spec.nodeSelector !== undefined) claim.nodeSelector = { ...spec.nodeSelector };
  if (tolerations.length > 0) claim.tolerations = [...tolerations];
  return claim;
}

/**
 * The pod's effective request: the sum over app containers, raised to the largest init container,
 * plus the overhead; a container's limit stands in for a request it does not make.
 */
function podRequests(spec: PodSpecView): ResourceTotals {
  const totals = new ResourceTotals();
  for (const c of spec.containers ?? []) totals.add(effectiveRequests(c));
  for (const c of spec.initContainers ?? []) totals.raiseTo(effectiveRequests(c));
  if (spec.overhead !== undefined) totals.add(spec.overhead);
  return totals;
}

function effectiveRequests(container: ContainerView): Readonly<Record<string, string>> {
  return { ...container.resources?.limits, ...container.resources?.requests };
}

/** Sums like Karmada's resource accounting: milli-CPU, bytes, pods and scalar resources, as integers. */
class ResourceTotals {
  private readonly amounts = new Map<string, bigint>();

  add(list: Readonly<Record<string, string>>): void {
    for (const [name, text] of Object.entries(list)) {
      const amount = accountedAmount(name, parseQuantity(text));
      if (amount !== undefined) this.amounts.set(name, (this.amounts.get(name) ?? 0n) + amount);
    }
  }

  raiseTo(list: Readonly<Record<string, string>>): void {
    for (const [name, text] of Object.entries(list)) {
      const amount = accountedAmount(name, parseQuantity(text));
      if (amount !== undefined && amount > (this.amounts.get(name) ?? 0n)) this.amounts.set(name, amount);
    }
  }

  toResourceList(): JsonObject | undefined {
    const out: JsonObject = {};
    for (const [name, amount] of this.amounts) {
      if (amount > 0n) out[name] = formatQuantity(asQuantity(name, amount));
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
}

/** CPU counts in milli-units, everything else in whole units; unknown native names are ignored. */
function accountedAmount(name: string, q: Quantity): bigint | undefined {
  if (name === 'cpu') return scaledValue(q, -3);
  if (name === 'memory' || name === 'pods' || name === 'ephemeral-storage') return scaledValue(q, 0);
  return isScalarResource(name) ? scaledValue(q, 0) : undefined;
}

function asQuantity(name: string, amount: bigint): Quantity {
  if (name === 'cpu') return quantityOf(amount, 'DecimalSI', true);
  const binary = name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
  return quantityOf(amount, binary ? 'BinarySI' : 'DecimalSI');
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Extended (`example.com/gpu`), hugepages, `kubernetes.io/` prefixed or attachable-volume resources. */
export function isScalarResource(name: string): boolean {
  return (
    isExtendedResource(name) ||
    name.startsWith('hugepages-') ||
    name.includes('kubernetes.io/') ||
    name.startsWith('attachable-volumes-')
  );
}

function isExtendedResource(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  if (native || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`);
}

function isQualifiedName(text: string): boolean {
  const parts = text.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? '';
  const prefix = parts.length === 2 ? (parts[0] ?? '') : undefined;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/**
 * The ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims the pod refers to, in that
 * order (names sorted within a kind), or null when there are none.
 */
export function podDependencies(template: JsonObject, namespace: string): JsonValue {
  const spec = specOf(template);
  const refs: JsonObject[] = [];
  const add = (kind: string, names: Set<string>): void => {
    for (const name of [...names].sort()) {
      refs.push(
        namespace === '' ? { apiVersion: 'v1', kind, name } : { apiVersion: 'v1', kind, namespace, name },
      );
    }
  };
  add('ConfigMap', configMapNames(spec));
  add('Secret', secretNames(spec));
  const account = spec.serviceAccountName ?? '';
  add('ServiceAccount', new Set(account !== '' && account !== 'default' ? [account] : []));
  add(
    'PersistentVolumeClaim',
    new Set(nonEmpty((spec.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName))),
  );
  return refs.length === 0 ? null : refs;
}

function allContainers(spec: PodSpecView): readonly ContainerView[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

function configMapNames(spec: PodSpecView): Set<string> {
  const names = allContainers(spec).flatMap((c) => [
    ...(c.envFrom ?? []).map((from) => from.configMapRef?.name),
    ...(c.env ?? []).map((env) => env.valueFrom?.configMapKeyRef?.name),
  ]);
  for (const v of spec.volumes ?? []) {
    if (v.projected !== undefined) names.push(...v.projected.sources.map((s) => s.configMap?.name));
    else if (v.configMap !== undefined) names.push(v.configMap.name);
  }
  return new Set(nonEmpty(names));
}

/** Volume sources that carry a secretRef, in the order Karmada looks for the first one a volume has. */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume'];
const LATER_SECRET_REF_SOURCES = ['scaleIO', 'iscsi', 'storageos'];

function secretNames(spec: PodSpecView): Set<string> {
  const names: (string | undefined)[] = (spec.imagePullSecrets ?? []).map((s) => s.name);
  for (const c of allContainers(spec)) {
    names.push(...(c.envFrom ?? []).map((from) => from.secretRef?.name));
    names.push(...(c.env ?? []).map((env) => env.valueFrom?.secretKeyRef?.name));
  }
  for (const v of spec.volumes ?? []) names.push(...volumeSecrets(v));
  return new Set(nonEmpty(names));
}

function volumeSecrets(v: VolumeView): (string | undefined)[] {
  if (v.azureFile !== undefined) return [v.azureFile.secretName];
  const early = secretRefOf(v, SECRET_REF_SOURCES);
  if (early !== undefined) return early;
  if (v.projected !== undefined) return v.projected.sources.map((s) => s.secret?.name);
  const rbd = secretRefOf(v, ['rbd']);
  if (rbd !== undefined) return rbd;
  if (v.secret !== undefined) return [v.secret.secretName];
  const late = secretRefOf(v, LATER_SECRET_REF_SOURCES);
  if (late !== undefined) return late;
  return v.csi !== undefined ? [v.csi.nodePublishSecretRef?.name] : [];
}

/** The secretRef name of the first of `sources` the volume has, or undefined when it has none. */
function secretRefOf(v: VolumeView, sources: readonly string[]): (string | undefined)[] | undefined {
  for (const source of sources) {
    const value = v[source] as { readonly secretRef?: Named } | undefined;
    if (value !== undefined) return [value.secretRef?.name];
  }
  return undefined;
}

function nonEmpty(names: readonly (string | undefined)[]): string[] {
  return names.filter((n): n is string => n !== undefined && n !== '');
}
