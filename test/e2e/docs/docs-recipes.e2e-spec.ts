import { Injectable, Module, type Type } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpOperationContext,
} from '../../../src/index';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DOCS_COMPANIONS } from '../../fixtures/docs-companions';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { docsTsBlocks, writeDocsModule } from '../../utils/docs-code';
import { PROTOCOL_VERSION, rawRound } from '../../utils/mcp';

/*
 * The recipes users copy from the docs, run as they are written: asserting a first round in a unit
 * test (docs/pipeline.md), a replay-style sign-in URL keyed by the flow (docs/replay.md) and a skill
 * a provider builds (docs/skills.md).
 */

/** The `ts` blocks of a `## heading` (or `### heading`) section of a docs page. */
function blocks(page: string, heading: string): string[] {
  const text = readFileSync(join(__dirname, '../../..', 'docs', page), 'utf8');
  const start = text.search(
    new RegExp(`\\n#+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`),
  );
  if (start < 0) throw new Error(`docs/${page} has no "${heading}" section`);
  const next = text.slice(start + 1).search(/\n#+ /);
  const section = text.slice(start, next < 0 ? undefined : start + 1 + next);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** Writes `code` as a module beside the tests (the package names pointing at this checkout) and loads it. */
function load<T>(name: string, code: string): T {
  const directory = join(__dirname, '../../.generated');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.ts`);
  writeFileSync(
    file,
    code
      .replace(/from 'nestjs-mcp\/testing'/g, "from '../../src/entry/testing'")
      .replace(/from 'nestjs-mcp'/g, "from '../../src/index'"),
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is written above
  return require(file) as T;
}

/** The tool the unit-test recipes drive: asks to confirm, then deletes. */
@Injectable()
class FileTools {
  @McpTool({
    name: 'delete_file',
    description: 'Deletes a file after a confirmation',
    mayRequestInput: [{ type: 'elicitation.form' }],
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  async deleteFile(
    args: { path: string },
    @McpContext() ctx: McpOperationContext,
  ): Promise<McpInputRequiredResult | string> {
    const answer = ctx.inputResponses.find('confirm');
    if (ctx.requestState.framework<{ asked: boolean }>()?.asked && answer?.kind === 'elicitation')
      return answer.action === 'accept' ? `Deleted ${args.path}` : 'Kept';
    return McpInputRequiredResult.builder()
      .inputRequest(
        'confirm',
        McpInputRequest.elicitForm({
          message: `Delete ${args.path}?`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
        }),
      )
      .frameworkState({ asked: true })
      .build();
  }
}

describe('the unit-test recipes of docs/pipeline.md', () => {
  it.each(blocks('pipeline.md', 'Unit-testing a handler').map((code, index) => [index, code]))(
    'block %i runs as written against a handler',
    async (index, code) => {
      const imports = code.split('\n').filter((line) => line.startsWith('import '));
      const body = code
        .split('\n')
        .filter((line) => !line.startsWith('import '))
        .join('\n');
      const { run } = load<{ run(tools: FileTools): Promise<void> }>(
        `pipeline-unit-test-${index}`,
        `${imports.join('\n')}\nexport async function run(tools: any): Promise<void> {\n${body}\n}\n`,
      );
      await run(new FileTools());
    },
  );
});

describe.each(ADAPTERS)('the sign-in URL recipe of docs/replay.md over %s', (adapter) => {
  let server: TestServer;
  let signIns: Set<string>;

  beforeAll(async () => {
    const [code] = blocks('replay.md', 'A sign-in URL in a replay-style handler');
    signIns = new Set();
    /** The recipe's store of finished sign-ins, by flow id. */
    @Injectable()
    class SignIns {
      async done(flowId: string): Promise<boolean> {
        return signIns.has(flowId);
      }
    }
    const header =
      "import { Injectable } from '@nestjs/common';\n" +
      "import { McpContext, McpMayRequestInput, McpTool } from 'nestjs-mcp';\n" +
      'export class SignIns { done(flowId: string): Promise<boolean> { return Promise.resolve(!!flowId); } }\n';
    const { GithubTools, SignIns: RecipeSignIns } = load<{
      GithubTools: Type<unknown>;
      SignIns: Type<unknown>;
    }>('replay-sign-in', `${header}${code}`);
    @Module({
      imports: [McpModule.forRoot({ allowEphemeralKey: true })],
      providers: [GithubTools, { provide: RecipeSignIns, useClass: SignIns }],
    })
    class RecipeApp {}
    server = await startTestServer(adapter, { imports: [RecipeApp] });
  });
  afterAll(() => server?.close());

  it.each([
    ['pinned to 2026-07-28', true],
    ['in a 2025-era session (the v2 client in its default mode)', false],
  ])(
    'asks the same URL every round of a flow and connects once the callback recorded the sign-in, %s',
    async (_era, pinned) => {
      const urls: string[] = [];
      const client = new Client(
        { name: 'docs-recipes', version: '1.0.0' },
        {
          ...(pinned && { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }),
          capabilities: { elicitation: { url: {} } },
        },
      );
      client.setRequestHandler('elicitation/create', (request) => {
        const url = String((request.params as { url: string }).url);
        urls.push(url);
        // The user finishes the sign-in in the browser on the second time the URL is shown.
        if (urls.length === 2) signIns.add(new URL(url).searchParams.get('flow') as string);
        return { action: 'accept' };
      });
      await client.connect(new StreamableHTTPClientTransport(server.url));
      try {
        const result = await client.callTool({ name: 'connect_github', arguments: {} });
        expect(result.content).toEqual([{ type: 'text', text: 'Connected' }]);
        expect(urls).toHaveLength(2);
        expect(new Set(urls).size).toBe(1);
      } finally {
        await client.close();
      }
    },
  );
});

describe.each(ADAPTERS)('the @McpSkill example of docs/skills.md over %s', (adapter) => {
  let server: TestServer;

  beforeAll(async () => {
    const example = writeDocsModule(
      'skills',
      'runbook-skills',
      docsTsBlocks('docs/skills.md', 'Skills your providers build')[0] as string,
      DOCS_COMPANIONS,
    );
    /* eslint-disable @typescript-eslint/no-require-imports -- the modules are written above */
    const { RunbookSkills } = require(example) as { RunbookSkills: Type<unknown> };
    const { EscalationPolicy } = require(join(dirname(example), 'escalation-policy')) as {
      EscalationPolicy: Type<unknown>;
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
    server = await startTestServer(
      adapter,
      {
        imports: [McpModule.forRoot({ allowEphemeralKey: true, skills: {} })],
        providers: [RunbookSkills, EscalationPolicy],
      },
      '/mcp',
      {},
      // Bearer-auth middleware's part: the on-call engineer's token grants runbooks:read.
      (app) =>
        app.use((req: IncomingMessage & { auth?: unknown }, _res: unknown, next: () => void) => {
          if (req.headers['x-on-call'] === 'yes')
            req.auth = { token: 'on-call', clientId: 'pager', scopes: ['runbooks:read'] };
          next();
        }),
    );
  });
  afterAll(() => server?.close());

  const skillUris = async (headers: Record<string, string>) =>
    (
      (await rawRound(server.url, 'skills/list', {}, { headers })).body.result as {
        skills: { uri: string }[];
      }
    ).skills.map((skill) => skill.uri);

  it("serves the skill the method builds to a caller its guard and scopes let in, with the service's text", async () => {
    expect(await skillUris({ 'x-on-call': 'yes' })).toEqual(['skill://escalation/SKILL.md']);
    const read = await rawRound(
      server.url,
      'resources/read',
      { uri: 'skill://escalation/SKILL.md' },
      { headers: { 'x-on-call': 'yes' } },
    );
    expect((read.body.result as { contents: { text: string }[] }).contents[0]?.text).toContain(
      'Page the on-call engineer; after 15 minutes, their lead.',
    );
  });

  it('hides it from anyone else', async () => {
    expect(await skillUris({})).toEqual([]);
  });
});
