// `nestjs-mcp/stores`: what an application writes against to keep single-use request state and
// state handles in stores of its own (the `requestState` ports, or a provider of the port's token
// in any module). The module picks memory or Redis without importing anything from here; the Redis
// adapters are in `nestjs-mcp/redis`, the contract suites every store must pass in
// `nestjs-mcp/testing`.

export { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
export { MemoryConsumedStateStore } from '../request-state/stores/one-time/memory-consumed-state.store';
export { ConsumedStateStoreError } from '../request-state/stores/one-time/consumed-state-store.error';
export {
  StateHandleRepository,
  type StateHandleRecord,
} from '../request-state/stores/handles/state-handle-repository.interface';
export { MemoryStateHandleRepository } from '../request-state/stores/handles/memory-state-handle.repository';
export { StateHandleRepositoryError } from '../request-state/stores/handles/state-handle-repository.error';
