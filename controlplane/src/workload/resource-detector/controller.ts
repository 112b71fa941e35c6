/**
 * resource-detector: turns resource templates selected by a PropagationPolicy or
 * ClusterPropagationPolicy into ResourceBindings / ClusterResourceBindings.
 * Keyed by the binding the template maps to (`<ns>/<name>-<kind>`), so that one key covers the
 * template, its binding, and the template's disappearance.
 * Watches templates (every watched type, built-in or custom; status-only changes ignored), both
 * policy kinds (a change queues every template its selectors name, starting caches for new
 * kinds, including kinds whose CRD appears later) and bindings.
 * Writes the claim onto the template, and creates, updates or deletes the binding. A binding of
 * another template with the same name (deleted and re-created) is retried until GC removed it.
 * A kind with an InterpretReplica script (a ResourceInterpreterCustomization) has the binding's
 * replicas from it; a customization change queues the templates of its kinds. A failing script
 * leaves the binding as it is, turns its `ReplicasInterpreted` condition False and is retried.
 * With gate MultiplePodTemplatesScheduling, a kind's InterpretComponent script gives the binding
 * `spec.components` instead (the scheduler then places the whole set on one cluster).
 */
import { labels, type PropagationPolicy, type ResourceBinding } from '@kf/api';
import {
  isAlreadyExists,
  isNotFound,
  joinKey,
  splitKey,
  type OwnWrites,
  type EventRecorder,
  type WatchCache,
} from '@kf/kube';
import {
  converged,
  keysFrom,
  recheckIn,
  type ControllerSpec,
  type Logger,
  type Outcome,
  type Source,
} from '@kf/runtime';
import {
  allBindings,
  bindingClient,
  getBinding,
  ownBindingWrites,
  type BindingStore,
  type OwnBindingWrites,
} from '../../bindings.ts';
import { isPropagatableType, isSkippedNamespace } from '../kinds.ts';
import { ownTemplateWrites, type OwnTemplateWrites, type TemplateCaches } from '../template-caches.ts';
import { isMeaningfulChange, type ResourceTemplate } from '../template.ts';
import {
  currentInterpreter,
  customizationSource,
  isTargeted,
  type InterpreterFeed,
} from '../interpreter/feed.ts';
import { ScriptFailedError, reportScriptOutcome } from '../interpreter/report.ts';
import { SCRIPT_CONDITIONS } from '../interpreter/script-condition.ts';
import { bindingRefFor, detectorReadChanged, planBinding, templateClaimPatch } from './binding-plan.ts';
import { interpretedWorkload } from './replicas.ts';
import {
  choosePolicy,
  policyConcerns,
  candidatePolicies,
  selectorIndexKeys,
  type PolicyIndex,
  type PolicyScope,
  type ScopedPolicy,
} from './policy-match.ts';
import { WORKLOAD_WORKERS } from '../workers.ts';

export interface ResourceDetectorDeps {
  readonly templates: TemplateCaches;
  readonly propagationPolicies: WatchCache<PropagationPolicy>;
  readonly clusterPropagationPolicies: WatchCache<PropagationPolicy>;
  readonly bindings: BindingStore;
  readonly events: EventRecorder;
  /** A fresh binding permanent id (a random UUID in production). */
  readonly newId: () => string;
  readonly log: Logger;
  /** The customizations' scripts (InterpretReplica, InterpretComponent). */
  readonly interpreter: InterpreterFeed;
  /** Gate MultiplePodTemplatesScheduling: InterpretComponent scripts give `spec.components`. */
  readonly schedulerOptions?: { readonly multiplePodTemplates?: boolean };
}

/** The binding key a template maps to; none for templates the detector leaves alone. */
export function bindingKeyOfTemplate(t: ResourceTemplate): readonly string[] {
  if (isSkippedNamespace(t.metadata.namespace)) return [];
  if (!isPropagatableType(t.apiVersion ?? '', t.kind ?? '')) return [];
  const ref = bindingRefFor(t);
  return [joinKey(ref.namespace, ref.name)];
}

/** Template changes other than status, resourceVersion and managedFields. */
export function templateSource(
  templates: TemplateCaches,
  options: {
    readonly ownWrites?: OwnWrites;
    readonly onlyKeys?: (key: string) => boolean;
  } = {},
): Source {
  const { ownWrites, onlyKeys } = options;
  const keysOf =
    onlyKeys === undefined
      ? bindingKeyOfTemplate
      : (t: ResourceTemplate) => bindingKeyOfTemplate(t).filter(onlyKeys);
  return keysFrom(templates, keysOf, {
    changed: (obj, old) => isMeaningfulChange(old, obj),
    ...(ownWrites === undefined ? {} : { ownWrites }),
  });
}

/**
 * A policy change queues the templates it selects or has claimed. For the fill and the resync it
 * names no key: the templates' source names every template, and naming them through the policies
 * (each a pass over every template) would make thirty million keys of 1,000 policies over 30,000
 * templates. (The kinds a policy selects are watched by the template caches themselves.)
 */
function policySource(
  deps: ResourceDetectorDeps,
  policies: WatchCache<PropagationPolicy>,
  scope: PolicyScope,
): Source {
  const keysOf = (p: PropagationPolicy): readonly string[] => {
    const sp: ScopedPolicy = { scope, policy: p };
    const keys: string[] = [];
    for (const t of deps.templates.list()) if (policyConcerns(sp, t)) keys.push(...bindingKeyOfTemplate(t));
    return keys;
  };
  return keysFrom(policies, keysOf, { listsKeys: false });
}

function policyIndex(deps: ResourceDetectorDeps): PolicyIndex {
  const pps = deps.propagationPolicies.index(POLICY_SELECTORS, selectorIndexKeys);
  const cpps = deps.clusterPropagationPolicies.index(POLICY_SELECTORS, selectorIndexKeys);
  return {
    propagationPolicy: (key) => deps.propagationPolicies.get(key),
    clusterPropagationPolicy: (name) => deps.clusterPropagationPolicies.get(name),
    propagationPoliciesFor: (t) => candidatePolicies(t, t.metadata.namespace ?? '', (key) => pps.get(key)),
    clusterPropagationPoliciesFor: (t) => candidatePolicies(t, '', (key) => cpps.get(key)),
  };
}

/** The name of the policy caches' index by {@link selectorIndexKeys}. */
const POLICY_SELECTORS = 'resource-detector/selectors';

/**
 * The template behind a binding key: for each watched type, a binding name ending in
 * `-<kind>` names the template before it. The existing binding's `spec.resource` settles
 * (rare) collisions between kinds.
 */
export function findTemplate(
  templates: TemplateCaches,
  key: string,
  binding: ResourceBinding | undefined,
): ResourceTemplate | undefined {
  const { namespace, name } = splitKey(key);
  const found: ResourceTemplate[] = [];
  for (const type of templates.types()) {
    if (type.namespaced !== (namespace !== undefined)) continue;
    const suffix = `-${type.kind.toLowerCase()}`;
    if (!name.endsWith(suffix)) continue;
    const t = templates.get(type.apiVersion, type.kind, joinKey(namespace, name.slice(0, -suffix.length)));
    if (t !== undefined) found.push(t);
  }
  const r = binding?.spec.resource;
  return found.find((t) => r !== undefined && t.apiVersion === r.apiVersion && t.kind === r.kind) ?? found[0];
}

/** The detector's own writes, whose events do not wake it again. */
interface DetectorWrites {
  readonly bindings: OwnBindingWrites;
  readonly templates: OwnTemplateWrites;
}

type WritingDeps = ResourceDetectorDeps & { readonly own: DetectorWrites };

/** A create that met a binding the cache does not show yet: look again shortly (see {@link sendBinding}). */
const CREATE_RACE_RECHECK_MS = 1_000;

export function resourceDetectorController(detectorDeps: ResourceDetectorDeps): ControllerSpec {
  const own: DetectorWrites = {
    bindings: ownBindingWrites(detectorDeps.bindings),
    templates: ownTemplateWrites(detectorDeps.templates),
  };
  const deps: WritingDeps = { ...detectorDeps, own };
  const index = policyIndex(deps);
  return {
    name: 'resource-detector',
    workers: WORKLOAD_WORKERS,
    sources: [
      templateSource(deps.templates, { ownWrites: own.templates.record }),
      policySource(deps, deps.propagationPolicies, 'Namespaced'),
      policySource(deps, deps.clusterPropagationPolicies, 'Cluster'),
      // It writes a binding's spec and metadata, and reads nothing of its status or of the fields
      // the scheduler and the evictors own.
      keysFrom(allBindings(deps.bindings), (b) => [joinKey(b.metadata.namespace, b.metadata.name ?? '')], {
        changed: detectorReadChanged,
        ownWrites: own.bindings.record,
      }),
      // A customization change may change the replicas of every template of its kinds.
      customizationSource(deps.interpreter, (targets) =>
        deps.templates
          .list()
          .filter((t) => isTargeted(targets, t.apiVersion ?? '', t.kind ?? ''))
          .flatMap(bindingKeyOfTemplate),
      ),
    ],
    async reconcile(key, { log, signal, now }) {
      const binding = getBinding(deps.bindings, key);
      const template = findTemplate(deps.templates, key, binding);
      if (template === undefined || template.metadata.deletionTimestamp !== undefined) {
        await removeOrphanBinding(deps, key, binding, log);
        return converged();
      }
      if (template.metadata.labels?.[labels.resourceTemplateClaimedBy] !== undefined) return converged();
      const choice = choosePolicy(template, index);
      switch (choice.kind) {
        case 'Wait':
          throw new Error(choice.reason);
        case 'Keep':
          return converged();
        case 'None':
          await writeClaim(deps, template, undefined, signal);
          return converged();
        case 'Apply':
          await writeClaim(deps, template, choice, signal);
          return writeBinding(deps, { key, template, binding, policy: choice }, { log, signal, now });
      }
    },
  };
}

/** Puts the policy's claim on the template (or removes a stale one) when it is not there yet. */
async function writeClaim(
  deps: WritingDeps,
  t: ResourceTemplate,
  policy: ScopedPolicy | undefined,
  signal: AbortSignal,
): Promise<void> {
  const patch = templateClaimPatch(t, policy);
  const client = deps.own.templates.client(t.apiVersion ?? '', t.kind ?? '');
  if (patch === undefined || client === undefined) return;
  await client.mergePatch(joinKey(t.metadata.namespace, t.metadata.name ?? ''), patch, { signal });
}

/** Creates or updates the binding of `template` under `policy`. */
async function writeBinding(
  deps: WritingDeps,
  target: {
    readonly key: string;
    readonly template: ResourceTemplate;
    readonly binding: ResourceBinding | undefined;
    readonly policy: ScopedPolicy;
  },
  ctx: { readonly log: Logger; readonly signal: AbortSignal; readonly now: () => number },
): Promise<Outcome> {
  const { key, template, policy } = target;
  const { step, outcome } = interpretedWorkload(
    template,
    currentInterpreter(deps.interpreter),
    deps.schedulerOptions?.multiplePodTemplates === true,
  );
  if (outcome.kind === 'failed') {
    // The binding keeps the replicas it has: a failing script must not reschedule the workload.
    await reportReplicas(deps, { key, binding: target.binding, template }, { step, outcome }, ctx);
    throw new ScriptFailedError(step, outcome.message);
  }
  const plan = planBinding(template, policy, target.binding, {
    newPermanentId: deps.newId(),
    ...(outcome.kind === 'succeeded' ? { replicas: outcome.value } : {}),
  });
  if (plan.kind === 'OwnedByOther') {
    throw new Error(`binding ${key} belongs to template uid ${plan.ownerUid}; waiting for its removal`);
  }
  const written = plan.kind === 'UpToDate' ? target.binding : await sendBinding(deps, key, plan, ctx.signal);
  if (written === 'raced') return recheckIn(CREATE_RACE_RECHECK_MS);
  if (plan.kind !== 'UpToDate') {
    const name = policy.policy.metadata.name ?? '';
    deps.events.record(template, 'Normal', 'ApplyPolicySucceed', `Apply policy(${name}) succeed`);
    ctx.log.info({ binding: key, action: plan.kind, policy: name }, 'binding written');
  }
  await reportReplicas(deps, { key, binding: written, template }, { step, outcome }, ctx);
  return converged();
}

/**
 * Creates or replaces the binding, remembering the write so that its event does not wake the
 * detector again. 'raced': an earlier pass created it and the cache does not show it yet; that
 * pass's event (let through now) or a recheck brings the key back, so this pass's reasons for
 * writing are not lost.
 */
async function sendBinding(
  deps: WritingDeps,
  key: string,
  plan: { readonly kind: 'Create' | 'Update'; readonly binding: ResourceBinding },
  signal: AbortSignal,
): Promise<ResourceBinding | 'raced'> {
  const client = deps.own.bindings.client(key);
  try {
    return plan.kind === 'Create'
      ? await client.create(plan.binding, { signal })
      : await client.replace(plan.binding, { signal });
  } catch (err: unknown) {
    if (plan.kind !== 'Create' || !isAlreadyExists(err)) throw err;
    deps.own.bindings.record.forget(key);
    return 'raced';
  }
}

/**
 * The InterpretReplica (or InterpretComponent) outcome as the binding's condition; with no
 * binding yet, a failure goes to the template as an Event, as upstream reports it.
 */
async function reportReplicas(
  deps: WritingDeps,
  target: {
    readonly key: string;
    readonly binding: ResourceBinding | undefined;
    readonly template: ResourceTemplate;
  },
  result: Parameters<typeof reportScriptOutcome>[2],
  ctx: { readonly signal: AbortSignal; readonly now: () => number },
): Promise<void> {
  const { key, binding, template } = target;
  if (binding === undefined) {
    const { outcome } = result;
    if (outcome.kind === 'failed')
      deps.events.record(template, 'Warning', SCRIPT_CONDITIONS[result.step].eventReason, outcome.message);
    return;
  }
  await reportScriptOutcome({ writes: deps.own.bindings, events: deps.events }, { key, b: binding }, result, {
    nowMs: ctx.now(),
    signal: ctx.signal,
  });
}

/**
 * The template is gone: delete the binding it owned (the garbage collector would too; doing it
 * here does not depend on GC running). Only when the template's type is watched and listed,
 * so that a binding is never deleted for a template the detector simply cannot see yet.
 */
async function removeOrphanBinding(
  deps: ResourceDetectorDeps,
  key: string,
  binding: ResourceBinding | undefined,
  log: Logger,
): Promise<void> {
  if (binding === undefined || binding.metadata.deletionTimestamp !== undefined) return;
  const r = binding.spec.resource;
  if (!deps.templates.isWatched(r.apiVersion, r.kind)) return;
  const owned =
    binding.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === r.uid) === true;
  if (!owned) return;
  try {
    await bindingClient(deps.bindings, key).delete(key, {
      preconditions: { uid: binding.metadata.uid ?? '' },
    });
    log.info({ binding: key }, 'template gone; binding deleted');
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err;
  }
}
