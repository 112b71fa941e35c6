/**
 * Reading a script's JSON result into one of Karmada's typed structures, as Go's encoding/json
 * does before Karmada uses it, and writing it back as Go would marshal it:
 *
 * - Field names match exactly, or else case-insensitively; unknown fields are dropped.
 * - A value of the wrong JSON type is an error (a string for an int, an object for a list, a
 *   fraction or an out-of-range number for an int32); null leaves the field at its zero value.
 * - Quantities parse from strings or numbers and come back in canonical form.
 * - On the way out, `omitempty` fields at their zero value disappear; pointer fields stay when set,
 *   even empty; required fields are always written.
 */
import { type JsonObject, type JsonValue, isJsonObject, setOwn } from '../json.ts';
import { QuantityError, formatQuantity, parseQuantity } from '../kube/quantity.ts';

export type Schema =
  | { readonly kind: 'string' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly bits: 32 | 64 }
  | { readonly kind: 'quantity' }
  | { readonly kind: 'list'; readonly of: Schema }
  | { readonly kind: 'map'; readonly of: Schema }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, Field>> };

/** always: written even at its zero value; pointer: written whenever set; omitempty: only when non-zero. */
export interface Field {
  readonly schema: Schema;
  readonly keep?: 'always' | 'pointer' | 'omitempty';
}

export class DecodeError extends Error {}

/** Decodes `value` into `schema` and returns its canonical JSON (undefined for a zero value). */
export function decodeAs(value: JsonValue, schema: Schema, path = ''): JsonValue | undefined {
  if (value === null) return undefined;
  switch (schema.kind) {
    case 'string':
      return expect(typeof value === 'string', value, path, 'string');
    case 'bool':
      return expect(typeof value === 'boolean', value, path, 'bool');
    case 'int':
      return decodeInt(value, schema.bits, path);
    case 'quantity':
      return decodeQuantity(value, path);
    case 'list':
      return decodeList(value, schema.of, path);
    case 'map':
      return decodeMap(value, schema.of, path);
    case 'struct':
      return decodeStruct(value, schema, path);
  }
}

function expect(ok: boolean, value: JsonValue, path: string, goType: string): JsonValue {
  if (!ok) throw mismatch(value, path, goType);
  return value;
}

function mismatch(value: JsonValue, path: string, goType: string): DecodeError {
  const where = path === '' ? 'the result' : `field ${path}`;
  return new DecodeError(`${where}: cannot unmarshal ${describe(value)} into Go value of type ${goType}`);
}

function describe(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return `number ${value}`;
  return value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value;
}

function decodeInt(value: JsonValue, bits: 32 | 64, path: string): number {
  const limit = bits === 32 ? 2 ** 31 : 2 ** 63;
  const ok = typeof value === 'number' && Number.isInteger(value) && value >= -limit && value < limit;
  return expect(ok && Math.abs(value) < 1e21, value, path, `int${bits}`) as number;
}

function decodeQuantity(value: JsonValue, path: string): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw mismatch(value, path, 'resource.Quantity');
  try {
    return formatQuantity(parseQuantity(String(value).trim()));
  } catch (error) {
    if (error instanceof QuantityError) throw new DecodeError(`field ${path}: ${error.message}`);
    throw error;
  }
}

function decodeList(value: JsonValue, of: Schema, path: string): JsonValue[] {
  if (!Array.isArray(value)) throw mismatch(value, path, `[]${goName(of)}`);
  return value.map((item, i) => decodeAs(item, of, `${path}[${i}]`) ?? zeroOf(of));
}

function decodeMap(value: JsonValue, of: Schema, path: string): JsonObject {
  if (!isJsonObject(value)) throw mismatch(value, path, `map[string]${goName(of)}`);
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(out, key, decodeAs(item, of, join(path, key)) ?? zeroOf(of));
  }
  return out;
}

function decodeStruct(value: JsonValue, schema: Schema & { kind: 'struct' }, path: string): JsonObject {
  if (!isJsonObject(value)) throw mismatch(value, path, schema.name);
  const decoded = new Map<string, JsonValue | undefined>();
  for (const [key, item] of Object.entries(value)) {
    const name = fieldName(schema, key);
    if (name !== undefined) decoded.set(name, decodeAs(item, fieldOf(schema, name).schema, join(path, name)));
  }
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(schema.fields)) {
    const item = decoded.get(name);
    const written = keepField(field, item, decoded.has(name));
    if (written !== undefined) setOwn(out, name, written);
  }
  return out;
}

function keepField(field: Field, item: JsonValue | undefined, present: boolean): JsonValue | undefined {
  switch (field.keep ?? 'omitempty') {
    case 'always':
      return item ?? zeroOf(field.schema);
    case 'pointer':
      return present ? item : undefined;
    case 'omitempty':
      return item === undefined || isEmpty(item, field.schema) ? undefined : item;
  }
}

/** Go's omitempty: false, 0, "", and empty lists and maps; a struct value is never empty. */
function isEmpty(value: JsonValue, schema: Schema): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return schema.kind === 'map' && Object.keys(value).length === 0;
  return value === '' || value === 0 || value === false;
}

/** Exact name first, then Go's case-insensitive match. */
function fieldName(schema: Schema & { kind: 'struct' }, key: string): string | undefined {
  if (Object.hasOwn(schema.fields, key)) return key;
  const folded = key.toLowerCase();
  return Object.keys(schema.fields).find((name) => name.toLowerCase() === folded);
}

function fieldOf(schema: Schema & { kind: 'struct' }, name: string): Field {
  const field = schema.fields[name];
  if (field === undefined) throw new DecodeError(`no field ${name} in ${schema.name}`);
  return field;
}

function zeroOf(schema: Schema): JsonValue {
  switch (schema.kind) {
    case 'string':
      return '';
    case 'quantity':
      return '0';
    case 'bool':
      return false;
    case 'int':
      return 0;
    case 'list':
      return [];
    case 'map':
    case 'struct':
      return {};
  }
}

function goName(schema: Schema): string {
  switch (schema.kind) {
    case 'struct':
      return schema.name;
    case 'list':
      return `[]${goName(schema.of)}`;
    case 'map':
      return `map[string]${goName(schema.of)}`;
    case 'int':
      return `int${schema.bits}`;
    case 'quantity':
      return 'resource.Quantity';
    case 'string':
    case 'bool':
      return schema.kind;
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
