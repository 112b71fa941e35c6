/** Functions the host (JavaScript) offers to scripts: their arguments and their errors. */
import type { JsonValue } from '../json.ts';

export interface HostArgs {
  readonly count: number;
  /** Lua's name for the type of argument i (1-based): `nil`, `string`, `table`, ... */
  type(i: number): string;
  /** Argument i as JSON, by the same rules as a script's result. */
  json(i: number): JsonValue;
  /** Argument i as a string; a number is converted as Lua converts it; anything else is an error. */
  string(i: number): string;
  /** Argument i as a number; anything else is an error. */
  number(i: number): number;
}

/** What the function returns to the script: undefined for nothing, null for nil. */
export type HostFunction = (args: HostArgs) => JsonValue | undefined;

/** Raised in the script at the line that called the host function. */
export class HostError extends Error {}

export function badArgument(index: number, fn: string, expected: string, got: string): HostError {
  return new HostError(`bad argument #${index} to '${fn}' (${expected} expected, got ${got})`);
}
