/** ResourceBinding and ClusterResourceBinding CRDs (same schema, different scope). */
import { clusterResourceBindingKind, resourceBindingKind } from '../binding.ts';
import type { KindDescriptor } from '../kind.ts';
import {
  conditionList,
  nodeSelector,
  patterns,
  replicas,
  resourceList,
  stringList,
  toleration,
} from './common.ts';
import { ageColumn, customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { conflictResolution, failover, placement, purgeMode, suspendClusters } from './placement.ts';
import {
  arbitrary,
  arr,
  bool,
  int32,
  int64,
  obj,
  oneOf,
  str,
  stringMap,
  time,
  type Schema,
} from './schema.ts';
import { resourceHealthValues } from './work.ts';

function nodeClaim(): Schema {
  return obj('Node constraints of each replica, copied from the pod template.', {
    hardNodeAffinity: nodeSelector('Required node affinity.'),
    nodeSelector: stringMap('Node labels required.'),
    tolerations: arr('Pod tolerations.', toleration(false)),
  });
}

function targetClusters(description: string): Schema {
  return arr(
    description,
    obj(
      'A cluster and the replicas it runs.',
      {
        name: str('Cluster name.', { minLength: 1 }),
        replicas: replicas('Replicas in the cluster.'),
        components: arr(
          'Replicas per component, for multi-template workloads.',
          obj(
            'Replicas of one component.',
            { name: str('Component name.'), replicas: replicas('Replicas of the component.') },
            { required: ['name'] },
          ),
        ),
      },
      { required: ['name'] },
    ),
  );
}

function evictionReason(description: string): Schema {
  return str(description, { pattern: patterns.reason, minLength: 1, maxLength: 32 });
}

function gracefulEvictionTasks(): Schema {
  return arr(
    'Clusters being moved away from; their Works stay until the task is dropped (except with purgeMode Directly or Immediately).',
    obj(
      'An eviction in progress.',
      {
        fromCluster: str('Cluster being evicted.', { minLength: 1 }),
        purgeMode: purgeMode(['Directly', 'Gracefully', 'Never']),
        replicas: int32('Replicas the cluster had.', { minimum: 0 }),
        reason: evictionReason('Why, in CamelCase: TaintUntolerated, ApplicationFailure or FailBack.'),
        message: str('Human-readable details.', { maxLength: 1024 }),
        producer: str('Controller that created the task.', { minLength: 1 }),
        gracePeriodSeconds: int32('Timeout of this task; not together with suppressDeletion.', {
          minimum: 1,
        }),
        suppressDeletion: bool('True keeps the task until someone sets it to false.'),
        preservedLabelState: stringMap('State captured from the evicted cluster, injected as labels.'),
        creationTimestamp: time('When the graceful eviction controller first saw the task.'),
        clustersBeforeFailover: stringList('Clusters of the placement before the failover.'),
      },
      {
        required: ['fromCluster', 'reason', 'producer'],
        rules: [
          {
            rule: '!has(self.gracePeriodSeconds) || !has(self.suppressDeletion)',
            message: 'gracePeriodSeconds and suppressDeletion are mutually exclusive',
            fieldPath: '.suppressDeletion',
          },
        ],
      },
    ),
  );
}

function evictionHistory(): Schema {
  return arr(
    'Clusters this binding was evicted from, kept after the eviction task is gone so that the ' +
      'scheduler can avoid them for a while. An addition to the upstream API (proposed there, never implemented).',
    obj(
      'One past eviction.',
      {
        clusterName: str('Cluster the binding was evicted from.', { minLength: 1 }),
        creationTimestamp: time('When the eviction happened.'),
        reason: evictionReason('Why, in CamelCase.'),
        producer: str('Controller that evicted.'),
      },
      { required: ['clusterName', 'creationTimestamp'] },
    ),
  );
}

function replicaRequirements(): Schema {
  return obj('What each replica needs.', {
    nodeClaim: nodeClaim(),
    resourceRequest: resourceList('Resources each replica requests.'),
    namespace: str('Namespace of the template.'),
    priorityClassName: str('PriorityClass of the replicas.'),
  });
}

function components(): Schema {
  return arr(
    'Pod templates of a multi-template workload.',
    obj(
      'One pod template.',
      {
        name: str('Component name.', { minLength: 1 }),
        replicas: replicas('Replicas of the component.'),
        replicaRequirements: obj('What each replica of the component needs.', {
          nodeClaim: nodeClaim(),
          resourceRequest: resourceList('Resources each replica requests.'),
          priorityClassName: str('PriorityClass of the replicas.'),
        }),
      },
      { required: ['name', 'replicas'] },
    ),
  );
}

function spec(): Schema {
  return obj(
    'The resource template, where it should go and where it was scheduled.',
    {
      resource: obj(
        'The resource template.',
        {
          apiVersion: str('API version.', { minLength: 1 }),
          kind: str('Kind.', { minLength: 1 }),
          namespace: str('Namespace; empty for cluster-scoped templates.'),
          name: str('Name.', { minLength: 1 }),
          uid: str('UID.'),
          resourceVersion: str('Resource version the binding was built from.'),
        },
        { required: ['apiVersion', 'kind', 'name'] },
      ),
      propagateDeps: bool('Propagate the resources the template depends on.'),
      replicaRequirements: replicaRequirements(),
      replicas: replicas('Replicas of the template.'),
      components: components(),
      clusters: targetClusters('Where the scheduler placed the resource.'),
      placement: placement('Placement copied from the policy.'),
      gracefulEvictionTasks: gracefulEvictionTasks(),
      evictionHistory: evictionHistory(),
      requiredBy: arr(
        'Bindings that depend on this one; the resource follows their placement.',
        obj(
          'A dependent binding.',
          {
            namespace: str('Namespace; empty for a ClusterResourceBinding.'),
            name: str('Name.', { minLength: 1 }),
            clusters: targetClusters('Where that binding is placed.'),
          },
          { required: ['name'] },
        ),
      ),
      schedulerName: str('Scheduler that places the resource.'),
      failover: failover('Failover behaviour copied from the policy.'),
      conflictResolution: conflictResolution(),
      rescheduleTriggeredAt: time('A time after status.lastScheduledTime asks for a fresh placement.'),
      suspension: obj('Suspends parts of the propagation.', {
        dispatching: bool('True stops propagating to all clusters.'),
        dispatchingOnClusters: suspendClusters('Stops propagating to these clusters.'),
        scheduling: bool('True stops the scheduler from processing the binding.'),
      }),
      preserveResourcesOnDeletion: bool('Keep the member copies when the template is deleted.'),
      schedulePriority: obj('Scheduling priority.', { priority: int32('Higher is scheduled first.') }),
      workloadAffinityGroups: obj('Workload (anti-)affinity groups of the template.', {
        affinityGroup: str('Affinity group.'),
        antiAffinityGroup: str('Anti-affinity group.'),
      }),
    },
    { required: ['resource'] },
  );
}

function status(): Schema {
  return obj('Scheduling and per-cluster state.', {
    schedulerObservedGeneration: int64('The .metadata.generation the scheduler last acted on.'),
    schedulerObservingAffinityName: str('The clusterAffinities term the placement is based on.'),
    lastScheduledTime: time('When the scheduler last placed the binding successfully.'),
    conditions: conditionList('Scheduled and FullyApplied.'),
    aggregatedStatus: arr(
      'The resource in each cluster, from the Work of that cluster.',
      obj(
        'The resource in one cluster.',
        {
          clusterName: str('Cluster name.', { minLength: 1 }),
          status: arbitrary('Status reflected from the member object.'),
          applied: bool('Whether the Work was applied.'),
          appliedMessage: str('Why applying failed.'),
          health: oneOf('Health of the member object.', resourceHealthValues),
        },
        { required: ['clusterName'] },
      ),
    ),
  });
}

const columns = [
  { name: 'SCHEDULED', type: 'string', jsonPath: '.status.conditions[?(@.type=="Scheduled")].status' },
  { name: 'FULLYAPPLIED', type: 'string', jsonPath: '.status.conditions[?(@.type=="FullyApplied")].status' },
  ageColumn,
] as const;

function bindingCrd(kind: KindDescriptor, description: string): CustomResourceDefinition {
  return customResourceDefinition(kind, { description, spec: spec(), status: status(), columns });
}

export function resourceBindingCrd(): CustomResourceDefinition {
  return bindingCrd(resourceBindingKind, 'Binds a namespaced resource template to its placement.');
}

export function clusterResourceBindingCrd(): CustomResourceDefinition {
  return bindingCrd(clusterResourceBindingKind, 'Binds a cluster-scoped resource template to its placement.');
}
