// Drives a tasks server with the official requester, @modelcontextprotocol/ext-tasks (ESM only, so
// it runs in its own Node process). Usage: node ext-tasks-driver.mjs <url> <user> <scenario>
// Prints one JSON line: what the requester observed.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';

const [url, user, scenario] = process.argv.slice(2);
const PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'ext-tasks-e2e', version: '1.0.0' };
const CAPABILITIES = { elicitation: { form: {} } };
const NAME_SOURCE = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

let nextId = 1;

/** Sends one raw JSON-RPC request as a 2026-07-28 client would; answers its result or error. */
async function rawDispatch(request, options = {}) {
  const field = NAME_SOURCE[request.method];
  const name = field === undefined ? undefined : request.params?.[field];
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL_VERSION,
      'Mcp-Method': request.method,
      ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
      'x-user': user,
      ...options.context?.headers,
    },
    // The requester leaves the JSON-RPC framing (version, id) to the host.
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, ...request }),
    signal: options.signal,
  });
  const message = await response.json();
  return message.error === undefined
    ? { kind: 'result', result: message.result }
    : { kind: 'error', error: message.error };
}

const client = new Client(CLIENT_INFO, {
  versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
  capabilities: CAPABILITIES,
});
await client.connect(
  new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-user': user } } }),
);
const asked = [];
const session = createTaskSessionFromClient(client, {
  endpointId: `nestjs-mcp-e2e:${url}`,
  rawDispatch,
  v2RequestFraming: {
    protocolVersion: PROTOCOL_VERSION,
    clientInfo: CLIENT_INFO,
    clientCapabilities: CAPABILITIES,
  },
  onInputRequest: async (request) => {
    asked.push(request.params.message);
    if (/^Pay /.test(request.params.message)) return { action: 'accept', content: { ok: true } };
    return { action: 'accept', content: { text: 'from ext-tasks' } };
  },
});

const text = (result) => result?.content?.[0]?.text;
const observed = { scenario };
try {
  if (scenario === 'complete') {
    const execution = await session.callTool('count_to', { n: 3 });
    observed.kind = execution.kind;
    const { outcome } = await execution.settle();
    observed.status = outcome.status;
    observed.text = text(outcome.result) ?? outcome.error?.message;
  } else if (scenario === 'input') {
    const execution = await session.callTool('approve_payment', { amount: '3.00' });
    observed.kind = execution.kind;
    const { outcome } = await execution.settle();
    observed.status = outcome.status;
    observed.text = text(outcome.result) ?? outcome.error?.message;
    observed.asked = asked;
  } else if (scenario === 'cancel') {
    const execution = await session.callTool('wait_for_cancel', {});
    observed.kind = execution.kind;
    observed.taskId = execution.handle?.taskId;
    await execution.cancel();
    const { outcome } = await execution.settle();
    observed.status = outcome.status;
  } else if (scenario === 'foreign') {
    const [taskId] = process.argv.slice(5);
    const controller = session.task(taskId);
    observed.errors = {};
    for (const [method, act] of [
      ['tasks/get', () => controller.snapshot()],
      [
        'tasks/update',
        () => controller.update({ approve: { action: 'accept', content: { ok: true } } }),
      ],
      ['tasks/cancel', () => controller.cancel()],
    ]) {
      try {
        await act();
        observed.errors[method] = 'none';
      } catch (error) {
        observed.errors[method] =
          error.code ?? error.error?.code ?? error.cause?.code ?? String(error);
      }
    }
  }
} catch (error) {
  observed.error = `${error?.stack ?? error} (cause: ${String(error?.cause)})`;
} finally {
  await session.close().catch(() => undefined);
  await client.close().catch(() => undefined);
}
console.log(JSON.stringify(observed));
