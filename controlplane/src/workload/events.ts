/** Events about a binding go to the binding and to its resource template, as upstream records them. */
import type { ResourceBinding } from '@kf/api';
import type { EventRecorder, EventType, InvolvedObject } from '@kf/kube';

export function templateReference(b: ResourceBinding): InvolvedObject {
  const r = b.spec.resource;
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    name: r.name,
    ...(r.namespace === undefined ? {} : { namespace: r.namespace }),
    ...(r.uid === undefined ? {} : { uid: r.uid }),
  };
}

export function recordOnBinding(
  events: EventRecorder,
  b: ResourceBinding,
  event: { readonly type: EventType; readonly reason: string; readonly message: string },
): void {
  events.record(b, event.type, event.reason, event.message);
  events.record(templateReference(b), event.type, event.reason, event.message);
}
