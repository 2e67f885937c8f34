// A fleet instance in its own process, for the test that kills it mid-step: a BullMqTaskRunner
// whose work never finishes. Arguments: the Redis port and the queue name. It prints "ready"
// once it takes steps and "started <taskId>" when a step starts.
import Redis from 'ioredis';
import { BullMqTaskRunner } from '../../../../src/entry/redis';

const [port, queueName] = process.argv.slice(2);
const client = new Redis(Number(port), '127.0.0.1', { maxRetriesPerRequest: 1 });
const runner = new BullMqTaskRunner(client, {
  queueName,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
});
runner.attach(
  (taskId) =>
    new Promise<void>(() => {
      process.stdout.write(`started ${taskId}\n`);
    }),
);
void runner.whenReady().then(() => process.stdout.write('ready\n'));
