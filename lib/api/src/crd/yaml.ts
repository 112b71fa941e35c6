/**
 * Renders JSON-like data as block-style YAML. Strings that a YAML 1.1 or 1.2 reader could take
 * for anything but a string are written double-quoted (JSON escapes are valid YAML escapes).
 */

const reserved = new Set(['y', 'yes', 'n', 'no', 'true', 'false', 'on', 'off', 'null', '~']);

function scalarText(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot render ${String(value)} as YAML`);
    return String(value);
  }
  if (typeof value === 'string') {
    const plain = /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(value) && !reserved.has(value.toLowerCase());
    return plain ? value : JSON.stringify(value);
  }
  throw new TypeError(`cannot render a ${typeof value} as YAML`);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyCollection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.values(value).every((v) => v === undefined);
}

function isScalar(value: unknown): boolean {
  return !Array.isArray(value) && !isRecord(value);
}

/** Lines of a collection rendered at `indent`, its first line prefixed by `- ` one level up. */
function asSequenceItem(value: unknown, indent: number): string[] {
  const lines = block(value, indent + 2);
  const [first = '', ...rest] = lines;
  return [`${' '.repeat(indent)}- ${first.trimStart()}`, ...rest];
}

function sequenceLines(items: readonly unknown[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  return items.flatMap((item) => {
    if (isScalar(item)) return [`${pad}- ${scalarText(item)}`];
    if (isEmptyCollection(item)) return [`${pad}- ${Array.isArray(item) ? '[]' : '{}'}`];
    return asSequenceItem(item, indent);
  });
}

function mappingLines(map: Readonly<Record<string, unknown>>, indent: number): string[] {
  const pad = ' '.repeat(indent);
  return Object.entries(map).flatMap(([key, value]) => {
    if (value === undefined) return [];
    const head = `${pad}${scalarText(key)}:`;
    if (isScalar(value)) return [`${head} ${scalarText(value)}`];
    if (isEmptyCollection(value)) return [`${head} ${Array.isArray(value) ? '[]' : '{}'}`];
    return [head, ...(Array.isArray(value) ? sequenceLines(value, indent) : block(value, indent + 2))];
  });
}

function block(value: unknown, indent: number): string[] {
  if (Array.isArray(value)) return sequenceLines(value, indent);
  if (isRecord(value)) return mappingLines(value, indent);
  return [`${' '.repeat(indent)}${scalarText(value)}`];
}

/** One YAML document for `value`, ending in a newline. */
export function renderYaml(value: unknown): string {
  if (isEmptyCollection(value)) return Array.isArray(value) ? '[]\n' : '{}\n';
  return `${block(value, 0).join('\n')}\n`;
}
