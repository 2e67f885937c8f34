export {
  createTestOperationContext,
  type TestOperationContext,
  type TestOperationContextOptions,
} from '../testing/create-test-operation-context';
export {
  createTestStateHandles,
  type TestStateHandlesOptions,
} from '../testing/create-test-state-handles';
export {
  describeBoundedConsumedStateStoreContract,
  describeConsumedStateStoreContract,
  type ConsumedStateCapacity,
  type ConsumedStateStoreSubject,
} from '../testing/contracts/consumed-state-store.contract';
export {
  describeBoundedStateHandleRepositoryContract,
  describeStateHandleRepositoryContract,
  type StateHandleRepositoryCapacity,
  type StateHandleRepositorySubject,
} from '../testing/contracts/state-handle-repository.contract';
export { describeTaskRunnerContract } from '../testing/contracts/task-runner.contract';
export {
  createTestTaskRecord,
  describeTaskStoreContract,
  type TaskStoreCapacity,
} from '../testing/contracts/task-store.contract';
export {
  createTestSessionRecord,
  describeSessionStoreContract,
} from '../testing/contracts/session-store.contract';
