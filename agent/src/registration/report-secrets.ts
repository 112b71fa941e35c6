/**
 * `--report-secrets`: which credentials of the member the agent hands to the control plane at
 * registration (karmada-agent's flag and values), and the names of what that creates.
 */
import { InvalidArgumentError } from 'commander';
import type { ReportedSecrets } from '@kf/member';

export const REPORT_SECRETS_VALUES = ['KubeCredentials', 'KubeImpersonator', 'None'] as const;
export type ReportSecretsValue = (typeof REPORT_SECRETS_VALUES)[number];

/**
 * Nothing, where karmada-agent reports both. The control plane of a pull-mode cluster never uses
 * them, and `KubeCredentials` is a member token bound to every verb on every resource, kept in a
 * member Secret that the agent itself can read (it applies Works that carry Secrets): reporting it
 * by default would leave that token within reach of every agent.
 */
export const DEFAULT_REPORT_SECRETS: readonly ReportSecretsValue[] = ['None'];

/**
 * The secrets a `--report-secrets` list asks for. Values are case-sensitive, as upstream's; an
 * empty list reports nothing, like `None`. `None` beside another value is refused: the operator
 * meant one or the other, and upstream would silently report the other.
 */
export function parseReportSecrets(values: readonly string[]): ReportedSecrets {
  const known = new Set<string>(REPORT_SECRETS_VALUES);
  const unknown = values.filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown value(s) ${unknown.map((v) => JSON.stringify(v)).join(', ')} (valid: ${REPORT_SECRETS_VALUES.join(', ')})`,
    );
  }
  if (values.includes('None') && values.some((v) => v !== 'None')) {
    throw new InvalidArgumentError('None cannot be combined with other values');
  }
  return {
    credentials: values.includes('KubeCredentials'),
    impersonator: values.includes('KubeImpersonator'),
  };
}
