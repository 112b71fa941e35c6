export {
  thirdPartyCustomizationsFolder,
  thirdPartyKinds,
  loadThirdPartyKind,
  caseSource,
  runCase,
  caseMismatch,
  type ThirdPartyKind,
  type ThirdPartyCase,
} from './thirdparty.ts';
export { scriptSource, customization } from './sources.ts';
