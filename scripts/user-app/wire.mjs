// Raw HTTP to the user app's MCP endpoint, for what the official clients do not show: the status
// line and headers of an answer, a 2025-era session's POST, GET and DELETE under any token, and a
// 2026-07-28 round sent by hand.

const JSON_RPC_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};
const SESSION_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
let nextId = 1;

/** `Authorization: Bearer <token>`, or nothing without a token. */
export function bearer(token) {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

/** The JSON-RPC messages of a body: one JSON message, or every `data:` event of a stream. */
function messagesOf(contentType, text) {
  if (text === '') return [];
  if (contentType?.startsWith('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

/** One request; resolves with its status, headers, text and JSON-RPC messages. */
async function exchange(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    messages: messagesOf(response.headers.get('content-type') ?? undefined, text),
  };
}

/** A 2025-11-25 `initialize` then `notifications/initialized`; the answer, with `sessionId`. */
export async function openSession(url, token, capabilities = {}) {
  const opened = await exchange(url, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, ...bearer(token) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: SESSION_VERSION,
        capabilities,
        clientInfo: { name: 'user-app-test', version: '1.0.0' },
      },
    }),
  });
  const sessionId = opened.headers.get('mcp-session-id') ?? undefined;
  if (opened.status === 200 && sessionId !== undefined)
    await sessionPost(url, sessionId, token, { method: 'notifications/initialized' });
  return { ...opened, sessionId };
}

/** A POST of `message` in session `sessionId`, with `token`. */
export function sessionPost(url, sessionId, token, message) {
  return exchange(url, {
    method: 'POST',
    headers: {
      ...JSON_RPC_HEADERS,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': SESSION_VERSION,
      ...bearer(token),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

/** The session's GET stream, with `token`: its status (a stream that opened is closed at once). */
export async function sessionGet(url, sessionId, token) {
  const controller = new globalThis.AbortController();
  const response = await fetch(url, {
    method: 'GET',
    headers: {
      Accept: 'text/event-stream',
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': SESSION_VERSION,
      ...bearer(token),
    },
    signal: controller.signal,
  });
  const text = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? ''
    : await response.text();
  controller.abort();
  return { status: response.status, text };
}

/** DELETE of session `sessionId`, with `token`. */
export function sessionDelete(url, sessionId, token) {
  return exchange(url, {
    method: 'DELETE',
    headers: {
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': SESSION_VERSION,
      ...bearer(token),
    },
  });
}

/**
 * One 2026-07-28 request sent by hand: the headers and the `_meta` envelope the official client
 * sends, `capabilities` declared, `token` as the bearer (none when undefined).
 */
export function modernRequest(url, method, params, { token, capabilities = {} } = {}) {
  const name = typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {};
  return exchange(url, {
    method: 'POST',
    headers: {
      ...JSON_RPC_HEADERS,
      'MCP-Protocol-Version': MODERN_VERSION,
      'Mcp-Method': method,
      ...name,
      ...bearer(token),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: `user-app-${nextId++}`,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
}
