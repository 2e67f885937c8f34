export {
  createTestRequestContext,
  type TestRequestContext,
  type TestRequestContextOptions,
} from './create-test-request-context';
