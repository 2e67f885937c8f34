// `nestjs-mcp/testing`: helpers for unit tests of operations, and the contract suite of every port,
// for apps that bring their own store or runner. The option and subject types of each are
// inferred from the function (`Parameters<typeof describeTaskStoreContract>[2]`).

export { createTestOperationContext } from '../operations/context/create-test-operation-context';
export { createTestStateHandles } from '../operations/handles/create-test-state-handles';
export { describeConsumedStateStoreContract } from '../request-state/stores/one-time/consumed-state-store.contract';
export { describeStateHandleRepositoryContract } from '../request-state/stores/handles/state-handle-repository.contract';
export { describeTaskRunnerContract } from '../ext/tasks/runner/task-runner.contract';
export { describeTaskStoreContract } from '../ext/tasks/store/task-store.contract';
export { createTestTaskRecord } from '../ext/tasks/store/test-task-record';
export {
  createTestSessionRecord,
  describeSessionStoreContract,
} from '../ext/sessions/store/session-store.contract';
