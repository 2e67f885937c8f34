import type { KeyringConfig, McpModuleOptions } from '../../src/index';
import { BearerPartitionResolver } from './flows/bearer-partition.resolver';

function optionalInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer`);
  return value;
}

function keyringFromEnv(): KeyringConfig | undefined {
  const raw = process.env.MCP_KEYRING;
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as KeyringConfig;
  } catch {
    // Never echo the variable: it holds key material.
    throw new Error('MCP_KEYRING must be JSON {"active":"<id>","keys":{"<id>":"<base64 bytes>"}}');
  }
}

/** `MCP_STORE=redis` with `REDIS_URL` keeps single-use state, state handles and tasks on Redis; the default stays in memory. */
function redisFromEnv(): McpModuleOptions['redis'] {
  const store = process.env.MCP_STORE || 'memory';
  if (store === 'memory') return undefined;
  if (store !== 'redis') throw new Error('MCP_STORE must be "memory" or "redis"');
  // Never echo REDIS_URL: it may hold a password.
  if (!process.env.REDIS_URL) throw new Error('MCP_STORE=redis needs REDIS_URL');
  return { url: process.env.REDIS_URL };
}

/** Module options of the sample app, from the environment (see sample-app/README.md). */
export function sampleMcpOptions(version: string): McpModuleOptions {
  return {
    serverInfo: { name: 'nestjs-mcp-sample', version },
    endpoint: process.env.MCP_ENDPOINT ?? '/mcp',
    keyring: keyringFromEnv(),
    partitionResolver: new BearerPartitionResolver(),
    requestBodyTimeoutMs: optionalInteger('MCP_REQUEST_BODY_TIMEOUT_MS'),
    fastPath: process.env.MCP_FAST_PATH !== 'off',
    redis: redisFromEnv(),
    requestState: {
      maxLifetimeMs: optionalInteger('MCP_STATE_MAX_LIFETIME_MS'),
      maxRounds: optionalInteger('MCP_STATE_MAX_ROUNDS'),
    },
  };
}
