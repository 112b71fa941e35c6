/** The one error every failing script call ends in, saying which script failed and what to fix. */
import type { InterpreterOperation } from './operations.ts';

/**
 * - compile: the script is not valid Lua.
 * - runtime: the script raised an error (its message has the script's line).
 * - timeout: a call ran past the time limit.
 * - memory: the VM ran out of its memory limit.
 * - missing-function: the script defines no function of the operation's name.
 * - result: the function returned something of the wrong type or shape.
 * - input: the object given to the script could not be passed to Lua.
 * - unavailable: the VM failed underneath the script and no replacement is ready yet.
 */
export type InterpreterFailure =
  'compile' | 'runtime' | 'timeout' | 'memory' | 'missing-function' | 'result' | 'input' | 'unavailable';

export class InterpreterScriptError extends Error {
  readonly operation: InterpreterOperation;
  /** The ResourceInterpreterCustomization whose script failed. */
  readonly customization: string;
  readonly reason: InterpreterFailure;

  constructor(
    operation: InterpreterOperation,
    customization: string,
    reason: InterpreterFailure,
    detail: string,
  ) {
    super(`${operation} script of ResourceInterpreterCustomization ${customization}: ${detail}`);
    this.name = 'InterpreterScriptError';
    this.operation = operation;
    this.customization = customization;
    this.reason = reason;
  }
}
