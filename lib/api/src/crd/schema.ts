/**
 * A small builder for structural OpenAPI v3 schemas as CustomResourceDefinitions take them.
 * Builders emit keys in one fixed order so that the rendered YAML is stable.
 */

/** An `x-kubernetes-validations` entry: a CEL rule and what to say when it is false. */
export interface ValidationRule {
  readonly rule: string;
  readonly message: string;
  /** JSON path, relative to the schema holding the rule, of the field the error names. */
  readonly fieldPath?: string;
  readonly reason?:
    'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'boolean' | 'number';

export interface Schema {
  readonly description?: string;
  readonly type?: SchemaType;
  readonly format?: string;
  readonly enum?: readonly string[];
  readonly default?: unknown;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly anyOf?: readonly Schema[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly additionalProperties?: Schema;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** Constraints a builder accepts besides the ones it sets itself. */
export interface Extra {
  readonly format?: string;
  readonly enum?: readonly string[];
  readonly default?: unknown;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly required?: readonly string[];
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly mapType?: 'atomic' | 'granular';
  readonly rules?: readonly ValidationRule[];
}

const keyOrder: readonly (keyof Schema)[] = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'maxProperties',
  'anyOf',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

/** Drops undefined keys and orders the rest canonically. */
function ordered(s: Record<string, unknown>): Schema {
  const out: Record<string, unknown> = {};
  for (const k of keyOrder) {
    if (s[k] !== undefined) out[k] = s[k];
  }
  return out;
}

function build(description: string, type: SchemaType | undefined, x: Extra, more: Schema = {}): Schema {
  const { listType, listMapKeys, mapType, rules, ...plain } = x;
  return ordered({
    ...plain,
    ...more,
    description,
    type,
    'x-kubernetes-list-type': listType,
    'x-kubernetes-list-map-keys': listMapKeys,
    'x-kubernetes-map-type': mapType,
    'x-kubernetes-validations': rules !== undefined && rules.length > 0 ? rules : undefined,
  });
}

export function str(description: string, x: Extra = {}): Schema {
  return build(description, 'string', x);
}

/** A string restricted to the given values. */
export function oneOf(description: string, values: readonly string[], x: Extra = {}): Schema {
  return build(description, 'string', { ...x, enum: values });
}

export function int32(description: string, x: Extra = {}): Schema {
  return build(description, 'integer', { ...x, format: 'int32' });
}

export function int64(description: string, x: Extra = {}): Schema {
  return build(description, 'integer', { ...x, format: 'int64' });
}

/** An integer without a declared width (Go `int`). */
export function int(description: string, x: Extra = {}): Schema {
  return build(description, 'integer', x);
}

export function bool(description: string, x: Extra = {}): Schema {
  return build(description, 'boolean', x);
}

/** An RFC 3339 timestamp. */
export function time(description: string, x: Extra = {}): Schema {
  return build(description, 'string', { ...x, format: 'date-time' });
}

export function obj(
  description: string,
  properties: Readonly<Record<string, Schema>>,
  x: Extra = {},
): Schema {
  return build(description, 'object', x, { properties });
}

export function arr(description: string, items: Schema, x: Extra = {}): Schema {
  return build(description, 'array', x, { items });
}

/** A map with string keys and values described by `values`. */
export function mapOf(description: string, values: Schema, x: Extra = {}): Schema {
  return build(description, 'object', x, { additionalProperties: values });
}

export function stringMap(description: string, x: Extra = {}): Schema {
  return mapOf(description, { type: 'string' }, x);
}

/** An object kept as written: upstream stores arbitrary JSON here. */
export function arbitrary(description: string): Schema {
  return build(description, 'object', {}, { 'x-kubernetes-preserve-unknown-fields': true });
}

/** A complete Kubernetes object kept as written (apiVersion, kind and metadata are checked). */
export function embeddedObject(description: string): Schema {
  return build(
    description,
    'object',
    {},
    {
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    },
  );
}

/** Same schema, other description: shared shapes read differently in each place they are used. */
export function describe(schema: Schema, description: string): Schema {
  return ordered({ ...schema, description });
}

/** Same schema with more rules appended. */
export function withRules(schema: Schema, rules: readonly ValidationRule[]): Schema {
  return ordered({
    ...schema,
    'x-kubernetes-validations': [...(schema['x-kubernetes-validations'] ?? []), ...rules],
  });
}
