import { InvalidModuleOptionsError } from './kit/errors/invalid-module-options.error';
import { ConceptSecretFieldPolicy } from './input/secret-field.policy';
import type { McpModuleOptions } from './mcp-module-options.interface';
import { resolveMcpOptions } from './mcp-options.resolver';
import { resolveRequestStateLimits } from './request-state/sealing/request-state-limits';
import { thrownBy } from './kit/thrown.spec-helper';

function refusal(options: unknown): InvalidModuleOptionsError {
  return thrownBy(() => resolveMcpOptions(options as McpModuleOptions), InvalidModuleOptionsError);
}

describe('resolveMcpOptions', () => {
  describe('defaults', () => {
    const resolved = resolveMcpOptions({}, '1.2.3');

    it('serves /mcp as nestjs-mcp with the package version', () => {
      expect(resolved.transport.endpoint).toBe('/mcp');
      expect(resolved.server.serverInfo).toEqual({ name: 'nestjs-mcp', version: '1.2.3' });
      expect(resolved.server.instructions).toBeUndefined();
    });

    it('drains on shutdown for at most 10 s, with no delay of its own', () => {
      expect(resolved.shutdown).toEqual({ graceMs: 10_000, drainDelayMs: 0 });
    });

    it('protects against DNS rebinding with no extra hosts or origins', () => {
      expect(resolved.transport.dnsRebindingProtection).toBe(true);
      expect(resolved.transport.allowedHosts).toEqual([]);
      expect(resolved.transport.allowedOrigins).toEqual([]);
    });

    it('bounds request bodies: 4 MiB in 10 s, 32 at once, and their JSON shape', () => {
      expect(resolved.transport.body).toEqual({
        maxBytes: 4_194_304,
        timeoutMs: 10_000,
        maxInFlightBytes: 33_554_432,
        maxDepth: 64,
        maxNumberLength: 1024,
        maxExponent: 10_000,
        maxNodes: 20_000,
        maxObjectKeys: 1_000,
        maxArrayLength: 10_000,
        maxStringLength: 1_048_576,
      });
    });

    it('bounds request state by its defaults (request-state-limits.spec.ts states them), with no ports', () => {
      expect(resolved.requestState).toEqual(resolveRequestStateLimits(undefined));
      expect(resolved.requestStatePorts.consumedStateStore).toBeUndefined();
      expect(resolved.requestStatePorts.stateHandleRepository).toBeUndefined();
    });

    it('gives every cacheable method a private, zero-ttl hint', () => {
      expect(Object.keys(resolved.server.cacheHints).sort()).toEqual(
        [
          'prompts/list',
          'resources/list',
          'resources/read',
          'resources/templates/list',
          'server/discover',
          'tools/list',
        ].sort(),
      );
      for (const hint of Object.values(resolved.server.cacheHints))
        expect(hint).toEqual({ ttlMs: 0, cacheScope: 'private' });
    });

    it('keeps alive every 15 s, with no keyring, protector or partition resolver, and the concept secret policy', () => {
      expect(resolved.transport.keepAliveMs).toBe(15_000);
      expect(resolved.keyring.keyring).toBeUndefined();
      expect(resolved.requestStatePorts.protector).toBeUndefined();
      expect(resolved.identity.partitionResolver).toBeUndefined();
      expect(resolved.inputPolicy.secrets).toBeInstanceOf(ConceptSecretFieldPolicy);
    });

    it('validates arguments', () => {
      expect(resolved.discovery.listPageSize).toBe(100);
      expect(resolved.discovery.validateArguments).toBe(true);
      expect(resolved.discovery.failOnValidationGap).toBe(process.env.NODE_ENV === 'production');
    });

    it('bounds listen streams: 1,000 in all, 10 per caller, 100 URIs of 2,048 characters each', () => {
      expect(resolved.listen).toEqual({
        maxStreams: 1000,
        maxStreamsPerCaller: 10,
        maxResourceSubscriptions: 100,
        maxUriLength: 2048,
      });
    });

    it('keeps tasks an hour (at most a day), polled every second, with bounded results, answers and tasks per caller', () => {
      expect(resolved.extensions.get('tasks')).toEqual({
        enabled: true,
        ttlMs: 3_600_000,
        maxTtlMs: 86_400_000,
        pollIntervalMs: 1_000,
        maxResultBytes: 1_048_576,
        maxInputResponseBytes: 262_144,
        maxTasksPerCaller: 100,
        maxCallBytes: 262_144,
        maxTasks: 10_000,
        maxStoreBytes: 1_073_741_824,
        maxStoreBytesPerCaller: 67_108_864,
        store: undefined,
        runner: undefined,
      });
    });

    it('works without any options argument', () => {
      expect(resolveMcpOptions().transport.endpoint).toBe('/mcp');
    });
  });

  describe('given values', () => {
    it('normalises the endpoint by dropping trailing slashes, but keeps "/"', () => {
      expect(resolveMcpOptions({ endpoint: '/api/mcp/' }).transport.endpoint).toBe('/api/mcp');
      expect(resolveMcpOptions({ endpoint: '/api/mcp//' }).transport.endpoint).toBe('/api/mcp');
      expect(resolveMcpOptions({ endpoint: '/' }).transport.endpoint).toBe('/');
    });

    it('keeps given limits, hints and flags', () => {
      const resolved = resolveMcpOptions({
        cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } },
        requestState: {
          maxEncodedBytes: 10_000,
          maxDecodedBytes: 10_000,
          maxRounds: 3,
          singleUse: true,
          maxConsumedStates: 5,
          maxHandleDataBytes: 100,
          maxStateHandles: 7,
        },
        elicitation: { development: true },
        validation: { arguments: false },
        http: {
          maxRequestBodyBytes: 1000,
          requestBodyTimeoutMs: 2_000,
          maxInFlightRequestBytes: 4_000_000,
          json: {
            maxDepth: 8,
            maxNodes: 500,
            maxObjectKeys: 50,
            maxArrayLength: 40,
            maxStringLength: 30,
          },
          keepAliveMs: 0,
          disableDnsRebindingProtection: true,
          allowedHosts: ['api.example.com'],
        },
      });
      expect(resolved.transport.body).toEqual({
        maxBytes: 1000,
        timeoutMs: 2_000,
        maxInFlightBytes: 4_000_000,
        maxDepth: 8,
        maxNumberLength: 1024,
        maxExponent: 10_000,
        maxNodes: 500,
        maxObjectKeys: 50,
        maxArrayLength: 40,
        maxStringLength: 30,
      });
      expect(resolved.server.cacheHints['tools/list']).toEqual({
        ttlMs: 60_000,
        cacheScope: 'public',
      });
      expect(resolved.server.cacheHints['prompts/list']).toEqual({
        ttlMs: 0,
        cacheScope: 'private',
      });
      expect(resolved.requestState).toEqual({
        maxEncodedBytes: 10_000,
        maxDecodedBytes: 10_000,
        maxLifetimeMs: 900_000,
        maxRounds: 3,
        maxConsumedStates: 5,
        maxHandleDataBytes: 100,
        maxStateHandles: 7,
        maxStateHandlesPerCaller: 100,
        maxStateHandleBytes: 67_108_864,
        maxConsumedStatesPerCaller: 10_000,
        singleUse: true,
      });
      expect(resolved.transport.keepAliveMs).toBe(0);
      expect(resolved.transport.dnsRebindingProtection).toBe(false);
      expect(resolved.transport.allowedHosts).toEqual(['api.example.com']);
      expect(resolved.inputPolicy.development).toBe(true);
      expect(resolved.discovery.validateArguments).toBe(false);
    });

    it('keeps given listen limits, and lowers the per-caller default to a lower maxStreams', () => {
      expect(
        resolveMcpOptions({
          listen: { maxStreams: 50, maxStreamsPerCaller: 50, maxResourceSubscriptions: 5 },
        }).listen,
      ).toEqual({
        maxStreams: 50,
        maxStreamsPerCaller: 50,
        maxResourceSubscriptions: 5,
        maxUriLength: 2048,
      });
      expect(resolveMcpOptions({ listen: { maxStreams: 4 } }).listen.maxStreamsPerCaller).toBe(4);
    });

    it('accepts a protector, a keyring and a secret policy of the right shape', () => {
      const protector = { seal: () => 'x', open: () => new Uint8Array() };
      const keyring = { active: 'k1', keys: { k1: Buffer.alloc(32) } };
      const secretPolicy = { secretConcept: () => undefined };
      const resolved = resolveMcpOptions({
        keyring,
        elicitation: { secretPolicy },
        requestState: { protector },
      });
      expect(resolved.requestStatePorts.protector).toBe(protector);
      expect(resolved.keyring.keyring).toBe(keyring);
      expect(resolved.inputPolicy.secrets).toBe(secretPolicy);
    });
  });

  describe('refuses invalid options, naming the option', () => {
    it.each([
      ['endpoint', { endpoint: 'mcp' }],
      ['endpoint', { endpoint: '' }],
      ['endpoint', { endpoint: '/mcp?x=1' }],
      ['endpoint', { endpoint: '/m c p' }],
      ['endpoint', { endpoint: 'https://example.com/mcp' }],
      ['endpoint', { endpoint: 42 }],
      ['serverInfo', { serverInfo: { name: '', version: '1' } }],
      ['serverInfo', { serverInfo: { name: 'x' } }],
      ['instructions', { instructions: 5 }],
      ['http.keepAliveMs', { http: { keepAliveMs: -1 } }],
      ['http.keepAliveMs', { http: { keepAliveMs: 1.5 } }],
      ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: 0 } }],
      ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: -5 } }],
      ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: 1.5 } }],
      ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: Infinity } }],
      ['http.maxRequestBodyBytes', { http: { maxRequestBodyBytes: '1000' } }],
      ['http.json.maxDepth', { http: { json: { maxDepth: 0 } } }],
      ['lists.pageSize', { lists: { pageSize: 0 } }],
      ['lists.pageSize', { lists: { pageSize: 10_001 } }],
      ['lists.pageSize', { lists: { pageSize: 2.5 } }],
      ['lists', { lists: 5 }],
      ['shutdown', { shutdown: 10 }],
      ['shutdown.graceMs', { shutdown: { graceMs: -1 } }],
      ['shutdown.graceMs', { shutdown: { graceMs: 600_001 } }],
      ['shutdown.drainDelayMs', { shutdown: { graceMs: 1_000, drainDelayMs: 1_001 } }],
      ['http.json.maxNumberLength', { http: { json: { maxNumberLength: -1 } } }],
      ['http.json.maxExponent', { http: { json: { maxExponent: 0.5 } } }],
      [
        'cacheHints.tools/list.ttlMs',
        { cacheHints: { 'tools/list': { ttlMs: -1, cacheScope: 'private' } } },
      ],
      [
        'cacheHints.tools/list.ttlMs',
        { cacheHints: { 'tools/list': { ttlMs: 1.5, cacheScope: 'private' } } },
      ],
      [
        'cacheHints.tools/list.cacheScope',
        { cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'shared' } } },
      ],
      [
        'cacheHints.tools/call',
        { cacheHints: { 'tools/call': { ttlMs: 0, cacheScope: 'private' } } },
      ],
      ['requestState.maxEncodedBytes', { requestState: { maxEncodedBytes: 0 } }],
      [
        'requestState.maxDecodedBytes',
        { requestState: { maxEncodedBytes: 2000, maxDecodedBytes: 2001 } },
      ],
      ['requestState.maxDecodedBytes', { requestState: { maxEncodedBytes: 2000 } }],
      ['requestState.maxEncodedBytes', { requestState: { maxEncodedBytes: 1000 } }],
      ['requestState.maxLifetimeMs', { requestState: { maxLifetimeMs: -1 } }],
      ['requestState.maxLifetimeMs', { requestState: { maxLifetimeMs: 2 ** 53 - 1 } }],
      ['requestState.maxRounds', { requestState: { maxRounds: 0 } }],
      ['requestState.maxRounds', { requestState: { maxRounds: 1001 } }],
      ['requestState.singleUse', { requestState: { singleUse: 'yes' } }],
      ['requestState.singleUse', { requestState: { singleUse: 1 } }],
      ['requestState.singleUse', { requestState: { singleUse: null } }],
      ['requestState.maxConsumedStates', { requestState: { maxConsumedStates: 0 } }],
      ['requestState.maxConsumedStates', { requestState: { maxConsumedStates: 1.5 } }],
      ['requestState.maxConsumedStates', { requestState: { maxConsumedStates: 100_000_001 } }],
      ['requestState.consumedStateStore', { requestState: { consumedStateStore: {} } }],
      ['requestState.consumedStateStore', { requestState: { consumedStateStore: null } }],
      ['requestState.maxHandleDataBytes', { requestState: { maxHandleDataBytes: 1 } }],
      ['requestState.maxHandleDataBytes', { requestState: { maxHandleDataBytes: 1_048_577 } }],
      ['requestState.maxStateHandles', { requestState: { maxStateHandles: 0 } }],
      ['requestState.maxStateHandles', { requestState: { maxStateHandles: 10_000_001 } }],
      ['requestState.stateHandleRepository', { requestState: { stateHandleRepository: {} } }],
      [
        'requestState.stateHandleRepository',
        {
          requestState: {
            stateHandleRepository: { put: () => undefined, redeem: () => undefined },
          },
        },
      ],
      ['requestState.stateHandleRepository', { requestState: { stateHandleRepository: null } }],
      ['requestState.protector', { requestState: { protector: { open: () => new Uint8Array() } } }],
      ['requestState.protector', { requestState: { protector: 'aes' } }],
      ['requestState.protector', { requestState: { protector: { seal: () => 'x' } } }],
      ['requestState.protector', { requestState: { protector: null } }],
      ['identity.partitionResolver', { identity: { partitionResolver: {} } }],
      ['identity.partitionResolver', { identity: { partitionResolver: null } }],
      ['elicitation.secretPolicy', { elicitation: { secretPolicy: null } }],
      ['elicitation.secretPolicy', { elicitation: { secretPolicy: { isSecret: () => false } } }],
      ['keyring', { keyring: 'k1' }],
      ['keyring', { keyring: { keys: {} } }],
      ['keyring', { keyring: { active: 'k1' } }],
      ['keyring', { keyring: { active: 1, keys: {} } }],
      ['keyring', { keyring: null }],
      ['keyring', { keyring: { active: 'k1', keys: null } }],
      ['http.allowedHosts', { http: { allowedHosts: 'api.example.com' } }],
      ['http.allowedHosts', { http: { allowedHosts: [''] } }],
      ['http.allowedOrigins', { http: { allowedOrigins: ['https://a.example', 5] } }],
      ['listen', { listen: 5 }],
      ['listen', { listen: null }],
      ['listen.maxStreams', { listen: { maxStreams: 0 } }],
      ['listen.maxStreams', { listen: { maxStreams: 1.5 } }],
      ['listen.maxStreamsPerCaller', { listen: { maxStreamsPerCaller: -1 } }],
      ['listen.maxStreamsPerCaller', { listen: { maxStreams: 5, maxStreamsPerCaller: 6 } }],
      ['listen.maxResourceSubscriptions', { listen: { maxResourceSubscriptions: 0 } }],
      ['listen.maxUriLength', { listen: { maxUriLength: '2048' } }],
      ['validation.arguments', { validation: { arguments: 'no' } }],
      ['validation.arguments', { validation: { arguments: null } }],
      ['validation.failOnGap', { validation: { failOnGap: 1 } }],
    ])('%s: %p', (option, options) => {
      const error = refusal(options);
      expect(error.option).toBe(option);
      expect(error.message).toContain(`"${option}"`);
    });

    it('refuses a task lifetime over the maximum, and stores or runners missing methods', () => {
      expect(refusal({ tasks: { ttlMs: 10_000, maxTtlMs: 5_000 } }).option).toBe('tasks.ttlMs');
      expect(refusal({ tasks: { pollIntervalMs: 0 } }).option).toBe('tasks.pollIntervalMs');
      expect(refusal({ tasks: { store: { get: () => undefined } } }).option).toBe('tasks.store');
      expect(refusal({ tasks: { runner: {} } }).option).toBe('tasks.runner');
      expect(refusal({ tasks: 'memory' }).option).toBe('tasks');
    });

    it('explains what the option must be', () => {
      expect(refusal({ http: { maxRequestBodyBytes: 0 } }).message).toBe(
        'Invalid McpModule option "http.maxRequestBodyBytes": must be a positive integer, got 0',
      );
      // An option spelled where it used to be names its new place instead of being ignored.
      expect(refusal({ fastPath: false } as McpModuleOptions).message).toBe(
        'Invalid McpModule option "fastPath": has moved to "http.fastPath" (see CHANGELOG.md)',
      );
      expect(refusal({ partitionResolver: {} } as McpModuleOptions).option).toBe(
        'partitionResolver',
      );
      expect(
        refusal({ requestState: { maxEncodedBytes: 2000, maxDecodedBytes: 3000 } }).message,
      ).toContain('must not exceed requestState.maxEncodedBytes');
      expect(refusal({ requestState: { protector: {} } }).message).toContain('seal() and open()');
      expect(refusal({ listen: { maxStreams: 5, maxStreamsPerCaller: 6 } }).message).toBe(
        'Invalid McpModule option "listen.maxStreamsPerCaller": must not exceed listen.maxStreams',
      );
    });
  });
});
