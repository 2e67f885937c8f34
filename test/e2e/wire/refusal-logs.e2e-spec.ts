import request from 'supertest';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rpcBody, rpcHeaders } from '../../utils/mcp';
import { sleep } from '../../utils/wait';

/**
 * A refused Host or Origin is logged at warn with the header and the value that failed (the wire
 * keeps its fixed answer), at most once a second so a client cannot flood the log.
 */
describe.each(ADAPTERS)('Host/Origin refusal logs over %s', (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;

  beforeAll(async () => {
    server = await startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json }, { logger });
  });

  afterAll(() => server?.close());

  const post = (headers: Record<string, string>) =>
    request(server.origin)
      .post('/mcp')
      .set({ ...rpcHeaders('tools/list'), ...headers })
      .send(rpcBody('tools/list'));

  const warnings = (from: number) =>
    logger.lines
      .slice(from)
      .filter((line) => line.level === 'warn' && line.text.includes('refused a request'));

  it('names the Host header and its value', async () => {
    await sleep(1_100);
    const mark = logger.lines.length;
    const response = await post({ Host: 'evil.example' });
    expect(response.status).toBe(403);
    expect(response.text).toContain('Forbidden: Host header not allowed by http.allowedHosts');
    expect(warnings(mark).map((line) => line.text)).toEqual([
      expect.stringMatching(
        /Host header "evil\.example" not allowed .*; if it is yours, add it to http\.allowedHosts\b/,
      ),
    ]);
  });

  it('names the Origin header and its value, once a second at most', async () => {
    await sleep(1_100);
    const mark = logger.lines.length;
    for (let i = 0; i < 5; i++)
      expect((await post({ Origin: 'https://evil.example' })).status).toBe(403);
    const logged = warnings(mark);
    expect(logged.length).toBeLessThan(5);
    expect(logged[0].text).toMatch(
      /Origin header "https:\/\/evil\.example" not allowed .*; if it is yours, add it to http\.allowedOrigins/,
    );
  });
});
