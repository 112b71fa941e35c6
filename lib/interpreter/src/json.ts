/** JSON values as the interpreter passes them in and out of Lua. */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

export interface JsonObject {
  [key: string]: JsonValue;
}

/** A Kubernetes object as a script sees it: any JSON object that names its kind. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly [key: string]: unknown;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `key` on a fresh object without letting `__proto__` (a legal JSON key) replace the
 * object's prototype.
 */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
