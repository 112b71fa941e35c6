export {
  thirdPartyCustomizationsFolder,
  thirdPartyKinds,
  loadThirdPartyKind,
  loadCustomizationCases,
  caseSource,
  runCase,
  caseMismatch,
  type ThirdPartyKind,
  type ThirdPartyCase,
} from './thirdparty.ts';
export { scriptSource, customization } from './sources.ts';
