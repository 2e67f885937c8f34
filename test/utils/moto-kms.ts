import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { until } from './wait';

/**
 * AWS KMS as `moto` emulates it (`python3 -m moto.server`, in the machine image's Python; no cloud
 * KMS is reachable from the test machines): a real KMS wire protocol that enforces encryption
 * contexts on `Decrypt`, driven by the official AWS SDK through `AWS_ENDPOINT_URL`. Started on a
 * free loopback port and stopped by the test.
 */
export interface MotoKms {
  /** `AWS_ENDPOINT_URL` for the SDK. */
  readonly url: string;
  /** The ARN of a symmetric key made for the test. */
  readonly keyArn: string;
  /** The environment the AWS SDK reads (region, dummy credentials, the endpoint). */
  readonly env: Readonly<Record<string, string>>;
  /** Stops the emulator (KMS unreachable); `start()` brings up a new one with no keys. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function startMotoKms(): Promise<MotoKms> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const env = {
    AWS_ENDPOINT_URL: url,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  };
  const client = new KMSClient({
    endpoint: url,
    region: env.AWS_REGION,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  try {
    const created = await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`moto exited: ${log}`);
        return client.send(new CreateKeyCommand({})).catch(() => undefined);
      },
      { what: 'moto to answer CreateKey', timeoutMs: 30_000, everyMs: 100 },
    );
    const keyArn = created.KeyMetadata?.Arn;
    if (!keyArn) throw new Error('moto made no key');
    return {
      url,
      keyArn,
      env,
      stop: () => stopChild(child),
      close: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    client.destroy();
  }
}
