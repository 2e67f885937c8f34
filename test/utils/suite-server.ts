import type { TestServer } from './bootstrap';
import { forSuite } from './suite-resource';

/**
 * The server the tests of the block that calls this run against, started by `start` before the
 * block's first test and closed after its last (see {@link forSuite} for the hooks' order).
 */
export function serverForSuite(start: () => Promise<TestServer>): TestServer {
  const current = forSuite(start, (server) => server.close());
  return {
    get app() {
      return current().app;
    },
    get origin() {
      return current().origin;
    },
    get url() {
      return current().url;
    },
    close: () => current().close(),
  };
}
