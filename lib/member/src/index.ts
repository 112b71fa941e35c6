export {
  WORK_APPLY_RESULTS,
  WORK_DELETE_RESULTS,
  type MemberMetrics,
  type WorkApplyResult,
  type WorkDeleteResult,
} from './metrics.ts';
export { NAMESPACE_RESOURCE, type Namespace } from './member/namespace.ts';
