/**
 * The Kubernetes JSONPath template subset that state preservation rules use
 * (`{ .jobStatus.jobID }`), evaluated over a reflected status the way upstream does:
 * missing keys are errors, scalars print like Go's `%v` of the JSON-decoded value (numbers are
 * float64: `3`, `2.5`, `1e+06`), maps and arrays print as compact JSON, and the results of one
 * expression are joined by a space. Text outside braces is kept as is.
 *
 * Supported inside `{…}`: `$`/`@`/`.` for the root, `.field`, `['field']` / `["a","b"]`, `[n]`
 * (negative from the end), `[a:b]` / `[a:b:step]`, `[*]` / `.*`, `..field` / `..*` (recursive
 * descent). Filters (`[?(…)]`), `range`/`end` and functions are refused with an error: rules
 * select one value of a status, which these forms cover.
 */

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

type Step =
  | { readonly kind: 'field'; readonly names: readonly string[] }
  | { readonly kind: 'index'; readonly indexes: readonly number[] }
  | { readonly kind: 'slice'; readonly start?: number; readonly end?: number; readonly step: number }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'recursive'; readonly name?: string };

type Segment =
  { readonly kind: 'text'; readonly text: string } | { readonly kind: 'expr'; readonly steps: Step[] };

/** Evaluates `template` over `root`; throws {@link JsonPathError} on syntax errors and missing keys. */
export function evaluateJsonPath(template: string, root: unknown): string {
  return parseTemplate(template)
    .map((s) => (s.kind === 'text' ? s.text : run(s.steps, root).map(formatValue).join(' ')))
    .join('');
}

/** Throws {@link JsonPathError} when `template` is not in the supported subset. */
export function parseTemplate(template: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      segments.push({ kind: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) segments.push({ kind: 'text', text: template.slice(i, open) });
    const close = template.indexOf('}', open);
    if (close < 0) throw new JsonPathError(`unclosed { in "${template}"`);
    segments.push({ kind: 'expr', steps: parseExpression(template.slice(open + 1, close).trim()) });
    i = close + 1;
  }
  return segments;
}

function parseExpression(text: string): Step[] {
  if (/^(range|end)\b/.test(text) || text.includes('?(')) {
    throw new JsonPathError(`"${text}": filters and range are not supported`);
  }
  let rest = text.replace(/^[$@]/, '');
  const steps: Step[] = [];
  while (rest !== '') {
    const parsed = parseStep(rest);
    if (parsed.step !== undefined) steps.push(parsed.step);
    rest = parsed.rest;
  }
  return steps;
}

const FIELD = /^[^.[\]\s]+/;

function parseStep(text: string): { readonly step?: Step; readonly rest: string } {
  if (text.startsWith('..')) {
    const after = text.slice(2);
    if (after.startsWith('*')) return { step: { kind: 'recursive' }, rest: after.slice(1) };
    const name = FIELD.exec(after)?.[0];
    if (name === undefined) throw new JsonPathError(`a field name must follow ".." in "${text}"`);
    return { step: { kind: 'recursive', name }, rest: after.slice(name.length) };
  }
  if (text.startsWith('.')) {
    const after = text.slice(1);
    if (after === '') return { rest: '' }; // `{.}`: the root itself
    if (after.startsWith('*')) return { step: { kind: 'wildcard' }, rest: after.slice(1) };
    if (after.startsWith('[')) return { rest: after };
    const name = FIELD.exec(after)?.[0];
    if (name === undefined) throw new JsonPathError(`a field name must follow "." in "${text}"`);
    return { step: { kind: 'field', names: [name] }, rest: after.slice(name.length) };
  }
  if (text.startsWith('[')) {
    const close = closingBracket(text);
    return { step: parseBracket(text.slice(1, close).trim()), rest: text.slice(close + 1) };
  }
  throw new JsonPathError(`unexpected "${text}"`);
}

/** Index of the `]` closing the bracket at 0, skipping quoted text. */
function closingBracket(text: string): number {
  let quote: string | undefined;
  for (let i = 1; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ']') return i;
  }
  throw new JsonPathError(`unclosed [ in "${text}"`);
}

const QUOTED = /^\s*(['"])(.*?)\1\s*$/;
const INTEGER = /^\s*-?\d+\s*$/;

function parseBracket(body: string): Step {
  if (body === '*') return { kind: 'wildcard' };
  const parts = body.split(',');
  if (parts.every((p) => QUOTED.test(p))) {
    return { kind: 'field', names: parts.map((p) => QUOTED.exec(p)?.[2] ?? '') };
  }
  if (parts.every((p) => INTEGER.test(p))) return { kind: 'index', indexes: parts.map(Number) };
  return parseSlice(body);
}

/** `[a:b]` / `[a:b:step]`, each bound optional. */
function parseSlice(body: string): Step {
  const bounds = body.split(':').map((b) => b.trim());
  const valid = bounds.length >= 2 && bounds.length <= 3 && bounds.every((b) => b === '' || INTEGER.test(b));
  if (!valid) throw new JsonPathError(`[${body}] is not a supported subscript`);
  const [start = '', end = '', step = ''] = bounds;
  const stepValue = step === '' ? 1 : Number(step);
  if (stepValue <= 0) throw new JsonPathError(`[${body}]: the step must be positive`);
  return {
    kind: 'slice',
    ...(start === '' ? {} : { start: Number(start) }),
    ...(end === '' ? {} : { end: Number(end) }),
    step: stepValue,
  };
}

function run(steps: readonly Step[], root: unknown): unknown[] {
  let values: unknown[] = [root];
  for (const step of steps) values = values.flatMap((v) => apply(step, v));
  return values;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function apply(step: Step, v: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return step.names.map((name) => {
        if (!isRecord(v) || !Object.hasOwn(v, name)) throw new JsonPathError(`${name} is not found`);
        return v[name];
      });
    case 'index':
      return step.indexes.map((n) => {
        if (!Array.isArray(v)) throw new JsonPathError(`[${String(n)}]: not an array`);
        const at = n < 0 ? v.length + n : n;
        if (at < 0 || at >= v.length) throw new JsonPathError(`array index ${String(n)} is out of bounds`);
        return v[at] as unknown;
      });
    case 'slice':
      return sliceOf(step, v);
    case 'wildcard':
      if (Array.isArray(v)) return v as unknown[];
      if (isRecord(v))
        return Object.keys(v)
          .sort()
          .map((k) => v[k]);
      return [];
    case 'recursive':
      return descend(v, step.name);
  }
}

function sliceOf(step: Extract<Step, { kind: 'slice' }>, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new JsonPathError('a slice needs an array');
  const clamp = (n: number): number => Math.min(v.length, Math.max(0, n < 0 ? v.length + n : n));
  const start = clamp(step.start ?? 0);
  const end = clamp(step.end ?? v.length);
  const out: unknown[] = [];
  for (let i = start; i < end; i += step.step) out.push(v[i]);
  return out;
}

/** Every value under `v` (itself included) — or, with `name`, every value of a field so named. */
function descend(v: unknown, name: string | undefined): unknown[] {
  const out: unknown[] = [];
  const visit = (node: unknown): void => {
    const children = Array.isArray(node)
      ? (node as unknown[])
      : isRecord(node)
        ? Object.keys(node)
            .sort()
            .map((k) => node[k])
        : [];
    if (name === undefined) out.push(node);
    else if (isRecord(node) && Object.hasOwn(node, name)) out.push(node[name]);
    for (const c of children) visit(c);
  };
  visit(v);
  return out;
}

/** Go's `%v` of a JSON-decoded value: numbers as float64, maps and arrays as compact JSON. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

/**
 * `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses: the shortest digits, in exponent form
 * when the exponent is below -4 or at least 6 (integers included: `1e+06`), else plain (`2.5`).
 */
export function formatFloat(f: number): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa = '', exponent = '0'] = f.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(f);
}
