import type { TestServer } from './bootstrap';
import { forSuite, type SuiteScope } from './suite-resource';

/**
 * The server the tests of the block that calls this run against, started by `start` before the
 * block's first test and closed after its last: in `scope` when given (closed before what the scope
 * opened earlier, a Redis server it uses), else in a scope of its own (see {@link SuiteScope}).
 */
export function serverForSuite(start: () => Promise<TestServer>, scope?: SuiteScope): TestServer {
  const close = (server: TestServer) => server.close();
  return scope ? scope.open(start, close) : forSuite(start, close);
}
