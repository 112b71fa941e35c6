import { describe, expect, it } from 'vitest';
import { credentialNames, secretRefs } from './credential-names.ts';

describe('credential names and references', () => {
  const names = credentialNames('member1', 'karmada-cluster');

  it("follow karmada-agent's names", () => {
    expect(names).toEqual({
      namespace: 'karmada-cluster',
      credentialsServiceAccount: 'karmada-member1',
      impersonatorServiceAccount: 'karmada-impersonator',
      clusterRole: 'karmada-controller-manager:karmada-member1',
      credentialsSecret: 'member1',
      impersonatorSecret: 'member1-impersonator',
    });
  });

  it('references only the reported secrets', () => {
    expect(secretRefs({ credentials: true, impersonator: true }, names)).toEqual({
      secretRef: { namespace: 'karmada-cluster', name: 'member1' },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
    });
    expect(secretRefs({ credentials: false, impersonator: true }, names)).toEqual({
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member1-impersonator' },
    });
    expect(secretRefs({ credentials: false, impersonator: false }, names)).toEqual({});
  });
});
