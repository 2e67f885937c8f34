import { type KeyringConfig, type KeyWrapper, type McpModuleOptions } from '../../src/index';
import { AwsKmsKeyWrapper } from '../../src/entry/aws-kms';
import { Pkcs11KeyWrapper } from '../../src/entry/pkcs11';
import { SampleTaskRunner } from './sample-task-runner';
import { authFromEnv, OAUTH_MODE } from './demo-auth/sample-auth';
import { BearerPartitionResolver } from './flows/bearer-partition.resolver';
import { sampleSkillsFolder } from './skills/skills-folder';
import { auditFromEnv } from './audit/sample-audit';

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
    const keyring = JSON.parse(raw) as KeyringConfig;
    const wrapper = keyWrapperFromEnv();
    const instanceName = process.env.MCP_INSTANCE_NAME;
    return {
      ...keyring,
      ...(wrapper && { wrapper }),
      ...(instanceName && { fleet: { instanceName } }),
    };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // Never echo the variable, not even as the cause (JSON.parse quotes the input): it may hold key material.
    // eslint-disable-next-line preserve-caught-error
    throw new Error('MCP_KEYRING must be JSON {"active":"<id>","keys":{"<id>":"<base64 bytes>"}}');
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`MCP_KEY_SOURCE=${process.env.MCP_KEY_SOURCE} needs ${name}`);
  return value;
}

/**
 * `MCP_KEY_SOURCE=pkcs11`: keys in an HSM (`PKCS11_MODULE`, `PKCS11_TOKEN_LABEL`, `PKCS11_PIN`,
 * optionally `PKCS11_WRAPPING_KEY_LABEL`); `MCP_KEY_SOURCE=aws-kms`: data keys wrapped by AWS KMS
 * (`MCP_KMS_KEY_ID`, the standard AWS configuration). Default: raw keys in `MCP_KEYRING`.
 */
function keyWrapperFromEnv(): KeyWrapper | undefined {
  const source = process.env.MCP_KEY_SOURCE || 'keyring';
  if (source === 'keyring') return undefined;
  if (source === 'pkcs11')
    return new Pkcs11KeyWrapper({
      module: required('PKCS11_MODULE'),
      tokenLabel: required('PKCS11_TOKEN_LABEL'),
      // Never echo the PIN.
      pin: required('PKCS11_PIN'),
      ...(process.env.PKCS11_WRAPPING_KEY_LABEL && {
        wrappingKeyLabel: process.env.PKCS11_WRAPPING_KEY_LABEL,
      }),
    });
  if (source === 'aws-kms')
    return new AwsKmsKeyWrapper({
      kmsKeyId: required('MCP_KMS_KEY_ID'),
      endpoint: process.env.MCP_KMS_ENDPOINT ?? 'nestjs-mcp-sample',
    });
  throw new Error('MCP_KEY_SOURCE must be "keyring", "pkcs11" or "aws-kms"');
}

/**
 * `MCP_STORE=redis` with `REDIS_URL` (or a cluster, `REDIS_CLUSTER_NODES`, or a Sentinel set,
 * `REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`) keeps single-use state, state handles, sessions and
 * tasks on Redis; the default stays in memory.
 */
export function redisFromEnv(): McpModuleOptions['redis'] {
  const store = process.env.MCP_STORE || 'memory';
  if (store === 'memory') return undefined;
  if (store !== 'redis') throw new Error('MCP_STORE must be "memory" or "redis"');
  const clusterNodes = process.env.REDIS_CLUSTER_NODES;
  if (clusterNodes)
    return {
      cluster: {
        nodes: clusterNodes.split(',').map((entry) => entry.trim()),
        ...(process.env.REDIS_PASSWORD && { password: process.env.REDIS_PASSWORD }),
      },
    };
  const sentinels = process.env.REDIS_SENTINELS;
  if (sentinels) {
    const name = process.env.REDIS_SENTINEL_MASTER;
    if (!name) throw new Error("REDIS_SENTINELS needs REDIS_SENTINEL_MASTER (the master's name)");
    return {
      sentinel: {
        sentinels: sentinels.split(',').map((entry) => entry.trim()),
        name,
        ...(process.env.REDIS_PASSWORD && { password: process.env.REDIS_PASSWORD }),
      },
    };
  }
  // Never echo REDIS_URL: it may hold a password.
  if (!process.env.REDIS_URL)
    throw new Error(
      'MCP_STORE=redis needs REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS and REDIS_SENTINEL_MASTER',
    );
  if (!/^rediss?:\/\/[^/]/.test(process.env.REDIS_URL))
    throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
  return { url: process.env.REDIS_URL };
}

/**
 * With `MCP_STORE=redis`, task steps run on a BullMQ queue the instances share (a step whose
 * instance dies is finished by another); `MCP_TASK_LOCK_MS` shortens how soon (default 30 s).
 */
function tasksFromEnv(redis: McpModuleOptions['redis']): McpModuleOptions['tasks'] {
  if (!redis?.url && !redis?.sentinel && !redis?.cluster) return undefined;
  const lockMs = optionalInteger('MCP_TASK_LOCK_MS');
  return {
    runner: new SampleTaskRunner(redis, {
      ...(lockMs !== undefined && { lockDurationMs: lockMs, stalledIntervalMs: lockMs }),
    }),
  };
}

/** Module options of the sample app, from the environment (see sample-app/README.md). */
export function sampleMcpOptions(version: string): McpModuleOptions {
  const redis = redisFromEnv();
  return {
    ...serverDescriptionFromEnv(version),
    rateLimits: rateLimitsFromEnv(),
    endpoint: process.env.MCP_ENDPOINT ?? '/mcp',
    keyring: keyringFromEnv(),
    auth: authFromEnv(),
    redis,
    tasks: tasksFromEnv(redis),
    // MCP_AUDIT: the audit trail (docs/audit.md), off by default.
    audit: auditFromEnv(redis),
    requestState: {
      maxLifetimeMs: optionalInteger('MCP_STATE_MAX_LIFETIME_MS'),
      maxRounds: optionalInteger('MCP_STATE_MAX_ROUNDS'),
    },
    tracing: { roundParent: roundParentFromEnv() },
    // SEP-2640 skills: sample-app/skills, and the operators' key-rotation skill (admin/).
    skills: { directory: sampleSkillsFolder(), watch: process.env.NODE_ENV === 'development' },
    identity: {
      // In OAuth mode the default resolver keys callers by the verified token's client and subject.
      partitionResolver: OAUTH_MODE ? undefined : new BearerPartitionResolver(),
    },
    http: {
      requestBodyTimeoutMs: optionalInteger('MCP_REQUEST_BODY_TIMEOUT_MS'),
      fastPath: process.env.MCP_FAST_PATH !== 'off',
    },
    shutdown: {
      graceMs: optionalInteger('MCP_SHUTDOWN_GRACE_MS'),
      drainDelayMs: optionalInteger('MCP_SHUTDOWN_DRAIN_DELAY_MS'),
    },
  };
}

/**
 * `MCP_SERVER_CARD=1` serves the experimental server card (`GET /mcp/server-card`): the card's name
 * is `serverInfo.name`, which must then be reverse-DNS (`dev.nestjs-mcp/sample`), and it needs a
 * description.
 */
function serverDescriptionFromEnv(
  version: string,
): Pick<McpModuleOptions, 'serverInfo' | 'serverCard'> {
  const card = process.env.MCP_SERVER_CARD;
  if (card === undefined || card === '' || card === '0')
    return { serverInfo: { name: 'nestjs-mcp-sample', version } };
  if (card !== '1') throw new Error('MCP_SERVER_CARD must be "1" or "0"');
  return {
    serverInfo: {
      name: 'dev.nestjs-mcp/sample',
      title: 'nestjs-mcp sample',
      version,
      description: 'Tickets, sealed approval flows, tasks and skills: the nestjs-mcp sample',
    },
    serverCard: true,
  };
}

/** `MCP_RATE_LIMIT_ERRORS=sep-3304`: rate limits answered as the draft SEP-3304 says (-32023). */
function rateLimitsFromEnv(): McpModuleOptions['rateLimits'] {
  const errors = process.env.MCP_RATE_LIMIT_ERRORS;
  if (errors === undefined || errors === '') return undefined;
  if (errors !== '-32029' && errors !== 'sep-3304')
    throw new Error('MCP_RATE_LIMIT_ERRORS must be "-32029" or "sep-3304"');
  return { errors };
}

function roundParentFromEnv(): 'client' | 'first-round' | undefined {
  const raw = process.env.MCP_TRACE_ROUND_PARENT;
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'client' && raw !== 'first-round')
    throw new Error('MCP_TRACE_ROUND_PARENT must be "client" or "first-round"');
  return raw;
}
