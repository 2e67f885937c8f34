export {
  createTestRequestContext,
  type TestRequestContext,
  type TestRequestContextOptions,
} from './create-test-request-context';
export { createTestStateHandles, type TestStateHandlesOptions } from './create-test-state-handles';
