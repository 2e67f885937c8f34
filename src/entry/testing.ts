// `nestjs-mcp/testing`: helpers for unit tests of operations, and the contract suite of every port,
// for apps that bring their own store or runner. The option and subject types of each are
// inferred from the function (`Parameters<typeof describeTaskStoreContract>[2]`).

export { createTestOperationContext } from '../testing/create-test-operation-context';
export { createTestStateHandles } from '../testing/create-test-state-handles';
export { describeConsumedStateStoreContract } from '../testing/contracts/consumed-state-store.contract';
export { describeStateHandleRepositoryContract } from '../testing/contracts/state-handle-repository.contract';
export { describeTaskRunnerContract } from '../testing/contracts/task-runner.contract';
export { describeTaskStoreContract } from '../testing/contracts/task-store.contract';
export { createTestTaskRecord } from '../testing/contracts/test-task-record';
export {
  createTestSessionRecord,
  describeSessionStoreContract,
} from '../testing/contracts/session-store.contract';
