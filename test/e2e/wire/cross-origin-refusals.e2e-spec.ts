import request from 'supertest';
import { CountedTools, startBrowserApp } from '../../fixtures/browser-app';
import { ALL_ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { expectErrorResponse } from '../../utils/expect-rpc';
import { rpcBody, rpcHeaders } from '../../utils/mcp';

/** Listed in `http.allowedOrigins` and allowed by the app's CORS. */
const ALLOWED = 'https://app.example.test';
/** Allowed by the app's CORS, but not by `http.allowedOrigins`. */
const CORS_ONLY = 'https://cors-only.example.test';
/** Allowed by neither. */
const STRANGER = 'https://stranger.example.test';

/** The request headers a browser MCP client sends beside `Content-Type`. */
const MCP_REQUEST_HEADERS = [
  'Content-Type',
  'Accept',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Mcp-Session-Id',
  'Last-Event-ID',
];

const ORIGIN_REFUSAL = {
  code: -32600,
  message: 'Forbidden: Origin header not allowed by http.allowedOrigins',
  data: { option: 'http.allowedOrigins' },
};

/**
 * What a browser page on another origin gets from the endpoint (the headers a browser reads; the
 * real browser's view is browser-client.e2e-spec.ts): the preflight is the app's CORS's to answer,
 * and a request the DNS-rebinding check refuses is answered 403 with the CORS headers the app's
 * CORS gives that origin — never more — and a body that names the option to set.
 */
describe.each(ALL_ADAPTERS)(
  'cross-origin requests the rebinding check refuses, over %s',
  (adapter) => {
    let withCors: TestServer;
    let withoutCors: TestServer;

    beforeAll(async () => {
      withCors = await startBrowserApp(adapter, {
        allowedOrigins: [ALLOWED],
        cors: [ALLOWED, CORS_ONLY],
      });
      withoutCors = await startBrowserApp(adapter, { allowedOrigins: [ALLOWED] });
    });

    afterAll(async () => {
      await withCors?.close();
      await withoutCors?.close();
    });

    const runs = (server: TestServer) => server.app.get(CountedTools).runs;

    const preflight = (server: TestServer, origin: string) =>
      request(server.origin)
        .options('/mcp')
        .set({
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': MCP_REQUEST_HEADERS.join(',').toLowerCase(),
        });

    const call = (server: TestServer, headers: Record<string, string>) =>
      request(server.origin)
        .post('/mcp')
        .set({ ...rpcHeaders('tools/call', 'count'), ...headers })
        .send(rpcBody('tools/call', { name: 'count', arguments: {} }));

    it("answers the preflight of an origin it refuses as the app's CORS configures it", async () => {
      const response = await preflight(withCors, CORS_ONLY);
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(CORS_ONLY);
      expect(response.headers['access-control-allow-methods']).toContain('POST');
      expect(response.headers['access-control-allow-headers']).toMatch(/\bmcp-method\b/i);
    });

    it("refuses the request itself 403 with the app's CORS headers and a body naming http.allowedOrigins", async () => {
      const before = runs(withCors);
      const response = await call(withCors, { Origin: CORS_ONLY });
      expectErrorResponse(response, 403, null, ORIGIN_REFUSAL);
      expect(response.headers['access-control-allow-origin']).toBe(CORS_ONLY);
      expect(response.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
      expect(runs(withCors)).toBe(before);
    });

    it("gives an origin the app's CORS does not allow no CORS header, on the preflight or the refusal", async () => {
      const before = runs(withCors);
      const answered = await preflight(withCors, STRANGER);
      expect(answered.headers['access-control-allow-origin']).toBeUndefined();
      const refused = await call(withCors, { Origin: STRANGER });
      expectErrorResponse(refused, 403, null, ORIGIN_REFUSAL);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      expect(runs(withCors)).toBe(before);
    });

    it('serves an origin listed in http.allowedOrigins and allowed by CORS', async () => {
      const before = runs(withCors);
      const response = await call(withCors, { Origin: ALLOWED });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(response.body.result.content).toEqual([{ type: 'text', text: `run ${before + 1}` }]);
      expect(runs(withCors)).toBe(before + 1);
    });

    it("refuses a foreign Host 403 with the app's CORS headers and a body naming http.allowedHosts", async () => {
      const before = runs(withCors);
      const response = await call(withCors, { Host: 'rebound.example.test', Origin: ALLOWED });
      expectErrorResponse(response, 403, null, {
        code: -32600,
        message: 'Forbidden: Host header not allowed by http.allowedHosts',
        data: { option: 'http.allowedHosts' },
      });
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(runs(withCors)).toBe(before);
    });

    it('refuses a body too large to drop 403 and closes the connection, running nothing', async () => {
      const before = runs(withCors);
      const response = await request(withCors.origin)
        .post('/mcp')
        .set({ ...rpcHeaders('tools/call', 'count'), Origin: CORS_ONLY })
        .send(
          rpcBody('tools/call', { name: 'count', arguments: { pad: 'x'.repeat(5 * 1024 * 1024) } }),
        );
      expectErrorResponse(response, 403, null, ORIGIN_REFUSAL);
      expect(response.headers.connection).toBe('close');
      expect(runs(withCors)).toBe(before);
    });

    it('without CORS in the app, answers no CORS header to anyone, and still runs nothing', async () => {
      const before = runs(withoutCors);
      const answered = await preflight(withoutCors, CORS_ONLY);
      expect(answered.status).toBeGreaterThanOrEqual(400);
      expect(answered.headers['access-control-allow-origin']).toBeUndefined();
      const refused = await call(withoutCors, { Origin: CORS_ONLY });
      expectErrorResponse(refused, 403, null, ORIGIN_REFUSAL);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      expect(runs(withoutCors)).toBe(before);
    });
  },
);
