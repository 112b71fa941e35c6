import { KubeError } from '@kf/kube';
import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../member/rest-mapper.ts';
import type { MemberObject } from './manifest-plan.ts';
import { isForeign, namespaceContents, type NamespaceLister } from './namespace-guard.ts';

function obj(kind: string | undefined, name: string, extra: Record<string, unknown> = {}): MemberObject {
  return { ...(kind === undefined ? {} : { kind }), metadata: { name, namespace: 'bench', ...extra } };
}

const managed = { labels: { 'karmada.io/managed': 'true' } };
const owned = { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u' }] };

describe('isForeign', () => {
  it('counts an unmanaged object without owners as someone else’s', () => {
    expect(isForeign(obj('ConfigMap', 'x'))).toBe(true);
  });

  it('does not count what Karmada manages', () => {
    expect(isForeign(obj('ConfigMap', 'x', managed))).toBe(false);
  });

  it('counts a managed label other than "true" as unmanaged', () => {
    expect(isForeign(obj('ConfigMap', 'x', { labels: { 'karmada.io/managed': 'false' } }))).toBe(true);
  });

  it('does not count an object with an owner', () => {
    expect(isForeign(obj('Pod', 'web-1-abc', owned))).toBe(false);
  });

  it('counts an object with an empty owner list', () => {
    expect(isForeign(obj('ConfigMap', 'x', { ownerReferences: [] }))).toBe(true);
  });

  it('does not count what every namespace gets', () => {
    expect(isForeign(obj('ServiceAccount', 'default'))).toBe(false);
    expect(isForeign(obj('ConfigMap', 'kube-root-ca.crt'))).toBe(false);
    expect(isForeign(obj('ServiceAccount', 'other'))).toBe(true);
    expect(isForeign(obj('ConfigMap', 'default'))).toBe(true);
    expect(isForeign(obj('Secret', 'kube-root-ca.crt'))).toBe(true);
  });

  it.each(['Event', 'Endpoints', 'EndpointSlice'])('does not count a %s', (kind) => {
    expect(isForeign(obj(kind, 'web'))).toBe(false);
  });
});

function mapping(kind: string, plural: string, group = ''): Mapping {
  return { group, version: 'v1', kind, plural, namespaced: true };
}

const configMaps = mapping('ConfigMap', 'configmaps');
const secrets = mapping('Secret', 'secrets');
const serviceAccounts = mapping('ServiceAccount', 'serviceaccounts');
const pods = mapping('Pod', 'pods');
const events = mapping('Event', 'events');
const endpoints = mapping('Endpoints', 'endpoints');
const endpointSlices = mapping('EndpointSlice', 'endpointslices', 'discovery.k8s.io');
const widgets = mapping('Widget', 'widgets', 'example.com');

type Answer = readonly MemberObject[] | Error;

/** A lister answering each plural from `answers` (no items when absent), recording what it listed. */
function fakeLister(
  resources: readonly Mapping[] | undefined,
  answers: Readonly<Record<string, Answer>> = {},
): NamespaceLister & { readonly listed: string[] } {
  const listed: string[] = [];
  return {
    listed,
    resources: () => Promise.resolve(resources),
    list: (m, namespace) => {
      listed.push(`${m.plural}@${namespace}`);
      const answer = answers[m.plural] ?? [];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

const signal = new AbortController().signal;

describe('namespaceContents', () => {
  it('cannot tell when discovery is incomplete', async () => {
    const lister = fakeLister(undefined);
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({
      kind: 'unknown',
      why: 'the member’s discovery is incomplete',
    });
    expect(lister.listed).toEqual([]);
  });

  it('finds a namespace with nothing in it ours', async () => {
    expect(await namespaceContents(fakeLister([]), 'bench', signal)).toEqual({ kind: 'ours' });
  });

  it('finds a namespace holding only managed, owned and built-in objects ours', async () => {
    const lister = fakeLister([configMaps, serviceAccounts, pods], {
      configmaps: [obj('ConfigMap', 'kube-root-ca.crt'), obj('ConfigMap', 'web', managed)],
      serviceaccounts: [obj('ServiceAccount', 'default')],
      pods: [obj('Pod', 'web-1-abc', owned)],
    });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({ kind: 'ours' });
    expect(lister.listed).toEqual(['configmaps@bench', 'serviceaccounts@bench', 'pods@bench']);
  });

  it('judges items without a kind by the kind listed', async () => {
    const lister = fakeLister([configMaps, serviceAccounts], {
      configmaps: [obj(undefined, 'kube-root-ca.crt')],
      serviceaccounts: [obj(undefined, 'default')],
    });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({ kind: 'ours' });
  });

  it('names someone else’s objects, at most three, by the kind listed', async () => {
    const lister = fakeLister([configMaps, secrets, widgets], {
      configmaps: [obj(undefined, 'a'), obj('ConfigMap', 'kube-root-ca.crt'), obj('ConfigMap', 'b')],
      secrets: [obj('Secret', 'c', managed), obj('Secret', 'd')],
      widgets: [obj('Widget', 'e')],
    });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({
      kind: 'foreign',
      examples: ['ConfigMap a', 'ConfigMap b', 'Secret d'],
    });
  });

  it('does not list Events, Endpoints or EndpointSlices', async () => {
    const lister = fakeLister([events, endpoints, endpointSlices, configMaps], {
      events: [obj('Event', 'x')],
      endpoints: [obj('Endpoints', 'x')],
      endpointslices: [obj('EndpointSlice', 'x')],
    });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({ kind: 'ours' });
    expect(lister.listed).toEqual(['configmaps@bench']);
  });

  it('passes the signal to every list', async () => {
    const seen: AbortSignal[] = [];
    const lister: NamespaceLister = {
      resources: () => Promise.resolve([configMaps, secrets]),
      list: (_m, _ns, s) => {
        seen.push(s);
        return Promise.resolve([]);
      },
    };
    await namespaceContents(lister, 'bench', signal);
    expect(seen).toEqual([signal, signal]);
  });

  it.each([
    [
      'NotFound',
      new KubeError('NotFound', 'the server could not find the requested resource', { status: 404 }),
    ],
    [
      'MethodNotAllowed',
      new KubeError('Invalid', 'the server does not allow this method', {
        status: 405,
        reason: 'MethodNotAllowed',
      }),
    ],
    ['a bare 405', new KubeError('Unknown', 'HTTP 405', { status: 405 })],
  ])('skips a kind whose list fails with %s', async (_what, err) => {
    const lister = fakeLister([widgets, configMaps], { widgets: err, configmaps: [obj('ConfigMap', 'x')] });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({
      kind: 'foreign',
      examples: ['ConfigMap x'],
    });
    expect(lister.listed).toEqual(['widgets@bench', 'configmaps@bench']);
  });

  it('cannot tell when it may not list a kind', async () => {
    const lister = fakeLister([configMaps, secrets, widgets], {
      configmaps: [obj('ConfigMap', 'x')],
      secrets: new KubeError('Forbidden', 'secrets is forbidden', { status: 403 }),
    });
    expect(await namespaceContents(lister, 'bench', signal)).toEqual({
      kind: 'unknown',
      why: 'the agent may not list secrets',
    });
    expect(lister.listed).toEqual(['configmaps@bench', 'secrets@bench']);
  });

  it('throws any other failure', async () => {
    const err = new KubeError('Unavailable', 'internal error', { status: 500 });
    const lister = fakeLister([configMaps], { configmaps: err });
    await expect(namespaceContents(lister, 'bench', signal)).rejects.toBe(err);
  });

  it('throws a failure that is not a KubeError', async () => {
    const err = new Error('boom');
    await expect(
      namespaceContents(fakeLister([configMaps], { configmaps: err }), 'bench', signal),
    ).rejects.toBe(err);
  });
});
