export {
  createTestOperationContext,
  type TestOperationContext,
  type TestOperationContextOptions,
} from './create-test-operation-context';
export { createTestStateHandles, type TestStateHandlesOptions } from './create-test-state-handles';
export {
  describeBoundedConsumedStateStoreContract,
  describeConsumedStateStoreContract,
  type ConsumedStateCapacity,
  type ConsumedStateStoreSubject,
} from './contracts/consumed-state-store.contract';
export {
  describeBoundedStateHandleRepositoryContract,
  describeStateHandleRepositoryContract,
  type StateHandleRepositoryCapacity,
  type StateHandleRepositorySubject,
} from './contracts/state-handle-repository.contract';
export { describeTaskRunnerContract } from './contracts/task-runner.contract';
export {
  createTestTaskRecord,
  describeTaskStoreContract,
  type TaskStoreCapacity,
} from './contracts/task-store.contract';
export {
  createTestSessionRecord,
  describeSessionStoreContract,
} from './contracts/session-store.contract';
