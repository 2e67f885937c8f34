import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import * as publicApi from './index';

/** Every name a barrel exports, values and types alike, as its source declares them. */
function declaredNames(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(__dirname, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const names: string[] = [];
  source.forEachChild((node) => {
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      for (const element of node.exportClause.elements) names.push(element.name.text);
  });
  return names.sort();
}

/** The module of the face `nestjs-mcp/<face>`, loaded as an application would. */
function faceModule(face: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(`./entry/${face}`) as Record<string, unknown>;
}

/** The face for extension authors (`nestjs-mcp/extension`), budgeted apart from the others. */
const EXTENSION_FACE = 'entry/extension.ts';

describe('the public API', () => {
  // Registries, the module's own interceptors, option tokens and the Redis adapters stay out of the
  // root; these lists change only on purpose (and CHANGELOG.md says so).
  it('exports from the root what applications write against, and nothing else', () => {
    expect(declaredNames('index.ts')).toEqual([
      'ANONYMOUS_PARTITION',
      'AesGcmRequestStateProtector',
      'ConceptSecretFieldPolicy',
      'DefaultAuthorizationPartitionResolver',
      'DuplicateOperationError',
      'InvalidInputRequestError',
      'InvalidModuleOptionsError',
      'InvalidOperationDefinitionError',
      'KeyInUseError',
      'KeyWrapper',
      'KeyringConfig',
      'KeyringError',
      'KeyringManager',
      'KeyringSnapshot',
      'LosslessNumber',
      'MCP_PROTOCOL_VERSION',
      'McpArgs',
      'McpAuthorizationPartitionResolver',
      'McpCompleter',
      'McpContext',
      'McpElicitationResponse',
      'McpErrorCode',
      'McpExecutionContext',
      'McpFlowEvent',
      'McpFlowEvents',
      'McpHttpResponse',
      'McpInputDeclaration',
      'McpInputRequest',
      'McpInputRequiredResult',
      'McpInputRequirement',
      'McpInputResponse',
      'McpInputResponses',
      'McpJsonValue',
      'McpMayRequestInput',
      'McpModule',
      'McpModuleOptions',
      'McpNotifier',
      'McpOperationContext',
      'McpPrompt',
      'McpPromptOptions',
      'McpProtocolException',
      'McpRedisOptions',
      'McpRequestStateMode',
      'McpResource',
      'McpResourceOptions',
      'McpRootsResponse',
      'McpSamplingResponse',
      'McpSealedInputRequired',
      'McpStandardSchema',
      'McpStateHandles',
      'McpTool',
      'McpToolError',
      'McpToolOptions',
      'NestjsMcpError',
      'RequestStateProtectionError',
      'RequestStateProtector',
      'SecretFieldPolicy',
      'isMcpContext',
    ]);
  });

  it('keeps the root small, and every entry point together small', () => {
    expect(declaredNames('index.ts').length).toBeLessThanOrEqual(60);
    const manifest = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as {
      exports: Record<string, string | { types?: string }>;
    };
    const entries = Object.values(manifest.exports)
      .map((target) => (typeof target === 'string' ? undefined : target.types))
      .filter((types): types is string => types !== undefined)
      .map((types) => types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'));
    expect(entries).toContain('index.ts');
    expect(entries).toContain(EXTENSION_FACE);
    // The extension authors' face is counted apart, within its own budget.
    expect(declaredNames(EXTENSION_FACE).length).toBeLessThanOrEqual(10);
    const total = entries
      .filter((entry) => entry !== EXTENSION_FACE)
      .reduce((sum, entry) => sum + declaredNames(entry).length, 0);
    // 108 when the extensions were cut out of the core; skills (3) and keys held elsewhere (3) paid
    // for themselves: one Redis client type and one contract function per port took 4 names out.
    // A new face pays for its names here, deliberately: nestjs-mcp/audit (9) — its options and
    // record types, the signer port and its three signers, the sink port, the verifier and its
    // verdict; run-time operations and stdio (6) — the registry service, its definition and handler
    // types, `McpStdio`, its options, the stderr logger.
    expect(total).toBeLessThanOrEqual(125);
  });

  it('has a value at runtime for every value name it declares', () => {
    const values = Object.keys(publicApi).sort();
    expect(values.every((name) => declaredNames('index.ts').includes(name))).toBe(true);
    expect(values).toContain('McpModule');
  });

  // Each face's names, those with a value at run time apart from those that are types only.
  it.each([
    {
      face: 'extension',
      values: [
        'McpListedResources',
        'McpMethodTable',
        'McpResourceReaders',
        'McpServerCapabilities',
        'configured',
        'defineMcpExtension',
        'port',
        'portProvider',
        'unguardedResource',
      ],
      types: ['McpExtension'],
    },
    {
      face: 'redis',
      values: [
        'BullMqTaskRunner',
        'RedisConsumedStateStore',
        'RedisSessionStore',
        'RedisStateHandleRepository',
        'RedisTaskStore',
      ],
      types: [
        'BullMqTaskRunnerOptions',
        'McpRedisClient',
        'RedisConsumedStateStoreOptions',
        'RedisSessionStoreOptions',
        'RedisStateHandleRepositoryOptions',
        'RedisTaskStoreOptions',
      ],
    },
    {
      face: 'tasks',
      values: [
        'InProcessTaskRunner',
        'MCP_TASKS_EXTENSION',
        'MemoryTaskStore',
        'TaskCapacityError',
        'TaskRunner',
        'TaskStore',
        'isDetachedMcpTaskStep',
      ],
      types: ['McpTaskRecord', 'TaskWork'],
    },
    {
      face: 'stores',
      values: [
        'ConsumedStateStore',
        'ConsumedStateStoreError',
        'MemoryConsumedStateStore',
        'MemoryStateHandleRepository',
        'StateHandleRepository',
        'StateHandleRepositoryError',
      ],
      types: ['StateHandleRecord'],
    },
    {
      face: 'runtime',
      values: ['McpRuntimeOperations'],
      types: ['McpRuntimeDefinition', 'McpRuntimeHandler'],
    },
    { face: 'stdio', values: ['McpStdio', 'McpStdioLogger'], types: ['McpStdioOptions'] },
    {
      face: 'sessions',
      values: ['MemorySessionStore', 'SessionCapacityError', 'SessionStore'],
      types: ['McpSessionRecord', 'MemorySessionStoreOptions', 'SessionCreationLimits'],
    },
    {
      face: 'audit',
      values: [
        'AuditSigner',
        'AwsKmsAuditSigner',
        'PemAuditSigner',
        'Pkcs11AuditSigner',
        'verifyAuditTrail',
      ],
      types: ['AuditRecord', 'AuditSink', 'AuditVerdict', 'McpAuditOptions'],
    },
  ])('exports from nestjs-mcp/$face its names, and nothing else', ({ face, values, types }) => {
    expect(declaredNames(`entry/${face}.ts`)).toEqual([...values, ...types].sort());
    expect(Object.keys(faceModule(face)).sort()).toEqual(values);
  });

  it('ships nestjs-mcp-audit as the build of its command', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ 'nestjs-mcp-audit': 'dist/ext/audit/verify/audit-cli.js' });
    expect(readFileSync(join(__dirname, 'ext/audit/verify/audit-cli.ts'), 'utf8')).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
  });

  it("is what the README's table of entry points lists: every one of the exports map, no other", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `(nestjs-mcp(?:\/[\w.-]+)?)` \|/gm)].map(
      (row) => row[1],
    );
    expect(listed.sort()).toEqual(
      Object.keys(manifest.exports)
        .map((entry) => (entry === '.' ? 'nestjs-mcp' : `nestjs-mcp/${entry.slice(2)}`))
        .sort(),
    );
  });
});
