/**
 * The `kube` module scripts load with `require("kube")`, with Karmada's functions and results:
 *
 * - resourceAdd(q1, q2, ...): the sum of quantity strings (nil counts as zero), as a canonical
 *   quantity string in the format of the first non-zero term (`kube.resourceAdd("1", "500m")` is
 *   "1500m").
 * - getResourceQuantity(q): a quantity string as a number (`"2Gi"` → 2147483648, nil → 0); negative
 *   or infinite values are an error.
 * - accuratePodRequirements(podTemplate): what one replica of the pod template needs, as
 *   `{nodeClaim = {...}, resourceRequest = {...}}` (nil when it needs nothing): the app
 *   containers' requests summed, raised to the largest init container, plus the overhead, a limit
 *   standing in for a missing request.
 * - getPodDependencies(podTemplate, namespace): the ConfigMaps, Secrets, ServiceAccount (not
 *   "default") and PersistentVolumeClaims the pod template refers to, as
 *   `{apiVersion = "v1", kind = ..., namespace = ..., name = ...}` items (nil when there are none);
 *   a nil namespace means "default".
 */
import { DecodeError, decodeAs } from '../convert/go-decode.ts';
import { settleEmptyTables } from '../convert/empty-fields.ts';
import { podTemplateSchema } from '../convert/schemas.ts';
import { type JsonObject, isJsonObject } from '../json.ts';
import { type HostArgs, HostError, type HostFunction, badArgument } from '../lua/host.ts';
import { podDependencies, replicaRequirements } from './pod-template.ts';
import {
  type Quantity,
  QuantityError,
  ZERO,
  addQuantities,
  approximateNumber,
  formatQuantity,
  parseQuantity,
} from './quantity.ts';

function quantityArg(args: HostArgs, i: number, fn: string): Quantity {
  const type = args.type(i);
  if (type === 'nil' || type === 'no value') return ZERO;
  if (type !== 'string') throw badArgument(i, fn, 'string', type);
  try {
    return parseQuantity(args.string(i));
  } catch (error) {
    if (error instanceof QuantityError) throw new HostError(error.message);
    throw error;
  }
}

function podTemplateArg(args: HostArgs, fn: string): JsonObject {
  const type = args.type(1);
  if (type !== 'table') throw badArgument(1, fn, 'table', type);
  try {
    const decoded = decodeAs(settleEmptyTables(args.json(1), 'object'), podTemplateSchema);
    return isJsonObject(decoded) ? decoded : {};
  } catch (error) {
    if (error instanceof DecodeError)
      throw new HostError(`fail to convert lua value to PodTemplateSpec: ${error.message}`);
    throw error;
  }
}

const resourceAdd: HostFunction = (args) => {
  let sum = ZERO;
  for (let i = 1; i <= args.count; i++) sum = addQuantities(sum, quantityArg(args, i, 'resourceAdd'));
  return formatQuantity(sum);
};

const getResourceQuantity: HostFunction = (args) => {
  if (args.count !== 1) throw new HostError('getResourceQuantity only accepts one argument');
  const q = quantityArg(args, 1, 'getResourceQuantity');
  const value = approximateNumber(q);
  if (value < 0)
    throw new HostError(`int approximation unexpectedly returned a negative value: ${formatQuantity(q)}`);
  if (value === Number.POSITIVE_INFINITY) {
    throw new HostError(`int approximation unexpectedly returned an infinite value: ${formatQuantity(q)}`);
  }
  return value;
};

const accuratePodRequirements: HostFunction = (args) => {
  if (args.count !== 1) throw new HostError('getPodRequirements only accepts one argument');
  return replicaRequirements(podTemplateArg(args, 'accuratePodRequirements'));
};

const getPodDependencies: HostFunction = (args) => {
  if (args.count !== 2) throw new HostError('getPodDependencies only accepts two argument');
  const template = podTemplateArg(args, 'getPodDependencies');
  const type = args.type(2);
  if (type !== 'nil' && type !== 'string' && type !== 'number')
    throw badArgument(2, 'getPodDependencies', 'string', type);
  return podDependencies(template, type === 'nil' ? 'default' : args.string(2));
};

export const kubeLibrary: Readonly<Record<string, HostFunction>> = {
  resourceAdd,
  getResourceQuantity,
  accuratePodRequirements,
  getPodDependencies,
};
