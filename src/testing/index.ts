export {
  createTestOperationContext,
  type TestOperationContext,
  type TestOperationContextOptions,
} from './create-test-operation-context';
export { createTestStateHandles, type TestStateHandlesOptions } from './create-test-state-handles';
