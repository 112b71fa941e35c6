/** Which of the agent's controllers run, from `--controllers` (karmadactl's names and rules). */
import { InvalidArgumentError } from 'commander';

/** Controllers this agent implements, by karmada-agent's names (the heartbeat belongs to clusterStatus). */
export const AGENT_CONTROLLERS = ['clusterStatus', 'execution', 'workStatus'] as const;
export type AgentControllerName = (typeof AGENT_CONTROLLERS)[number];

/** karmada-agent controllers that are accepted (for drop-in flag compatibility) but not run here. */
const ACCEPTED_ELSEWHERE = ['certRotation', 'endpointsliceCollect', 'serviceExport'];

/**
 * The enabled controllers for a `--controllers` list: for each controller the first entry naming
 * it (`name` enables, `-name` disables) wins; otherwise `*` enables it; otherwise it is off.
 * Throws for names no agent controller has.
 */
export function enabledControllers(entries: readonly string[]): AgentControllerName[] {
  const known = new Set<string>([...AGENT_CONTROLLERS, ...ACCEPTED_ELSEWHERE]);
  const unknown = entries.filter((e) => e !== '*' && !known.has(e.replace(/^-/, '')));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown controller(s) ${unknown.join(', ')} (known: ${[...AGENT_CONTROLLERS, ...ACCEPTED_ELSEWHERE].join(', ')})`,
    );
  }
  return AGENT_CONTROLLERS.filter((name) => {
    const first = entries.find((e) => e === name || e === `-${name}`);
    if (first !== undefined) return first === name;
    return entries.includes('*');
  });
}
