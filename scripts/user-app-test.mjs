// The user-app test: "a user's app is not our sample app" (issue 25). Packs this package and
// installs the tarball from a plain `npm install` into the app a user has — laid out as `nest new`
// makes it (Nest 11: CommonJS; Nest 12: ESM-only Nest, "type": "module"; see
// scripts/pack-consumer/user-app/nest-new.mjs) — with the globals real apps have: a global passport
// guard verifying bearer JWTs (jose) that sets req.user, read by the default partition resolver;
// app.use() middleware; ClassSerializerInterceptor; a catch-all exception filter;
// ValidationPipe({ whitelist: true }); and five tools (a plain one, a form confirmation, a
// connect-style sign-in URL, a sealed four-round flow, a tool that may run as a task). Each app runs
// on Express and on Fastify (Nest 12 on Node 24) and is driven by the official clients of both
// eras and the MCP Inspector's CLI. What it asserts is listed in CONTRIBUTING.md.
//
// Usage: node scripts/user-app-test.mjs [--smoke]   (npm run test:user-app, test:user-app:smoke)
//   --smoke   only the Nest 11 app on Express, without the current Inspector (about 40 s)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NEST_CONSUMERS, packTarball, startApp, stop } from './consumer-app.mjs';
import { nodeAtLeast } from './node-binary.mjs';
import { TokenIssuer } from './user-app/clients.mjs';
import { ensureInspector } from './user-app/inspectors.mjs';
import { inspectorTests } from './user-app/inspector.tests.mjs';
import { installUserApp } from './user-app/install-app.mjs';
import { modernEraTests } from './user-app/modern-era.tests.mjs';
import { sessionEraTests } from './user-app/session-era.tests.mjs';

const SMOKE = process.argv.includes('--smoke');
const MATRIX = SMOKE
  ? [{ consumer: NEST_CONSUMERS.find((each) => each.nest === 11), adapters: ['express'] }]
  : NEST_CONSUMERS.map((consumer) => ({ consumer, adapters: ['express', 'fastify'] }));
/** Nest 12 apps run on the Node their dependencies ask for (>= 22); this is the pinned Node 24. */
const NEST_12_NODE = '24.9';

const workDir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-user-app-'));
let tarball;
let currentInspector;

before(
  () => {
    tarball = packTarball(workDir);
    if (!SMOKE) currentInspector = ensureInspector();
  },
  { timeout: 240_000 },
);

after(() => rmSync(workDir, { recursive: true, force: true }));

for (const { consumer, adapters } of MATRIX) {
  describe(`a user's Nest ${consumer.nest} ${consumer.format} app`, () => {
    const appDir = join(workDir, `nest${consumer.nest}`);

    before(
      () => {
        mkdirSync(appDir);
        installUserApp(consumer, appDir, tarball);
      },
      { timeout: 240_000 },
    );

    for (const adapter of adapters) {
      describe(`on ${adapter}`, () => {
        /** What the tests read; filled in when the app has started. */
        const app = {};
        let child;

        before(
          async () => {
            const secret = randomBytes(32).toString('base64url');
            const keyring = { active: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
            const started = await startApp(appDir, {
              args: [adapter],
              nodeBinary:
                consumer.nest === 12
                  ? nodeAtLeast(NEST_12_NODE, 'the Nest 12 user app')
                  : undefined,
              env: {
                PORT: '0',
                NO_COLOR: '1',
                JWT_SECRET: secret,
                MCP_KEYRING: JSON.stringify(keyring),
              },
            });
            child = started.child;
            const tokens = new TokenIssuer(secret);
            Object.assign(app, {
              url: started.url,
              origin: started.url.origin,
              log: started.log,
              tokens,
              alice: await tokens.sign('u-alice', 'alice'),
              bob: await tokens.sign('u-bob', 'bob'),
              forged: await tokens.sign('u-alice', 'alice', randomBytes(32)),
              inspector: currentInspector,
            });
          },
          { timeout: 60_000 },
        );

        after(() => child && stop(child));

        modernEraTests(app);
        sessionEraTests(app);
        inspectorTests(app, { current: !SMOKE });

        it('logs no warning that the signed-in users share the "anonymous" partition', () => {
          const warned = app
            .log()
            .split('\n')
            .filter((line) => /"anonymous" partition/i.test(line));
          if (warned.length > 0) throw new Error(`the app logged:\n${warned.join('\n')}`);
        });
      });
    }
  });
}
