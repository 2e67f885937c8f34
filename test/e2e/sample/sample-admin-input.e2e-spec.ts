import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { ADAPTERS } from '../../utils/bootstrap';
import { startSampleApp } from '../../fixtures/sample-app';
import { serverForSuite } from '../../utils/suite-server';
import { envForSuite } from '../../utils/suite-env';

// Red team IV, finding 6: the sample's stage endpoint answered a body of 20,000 nested arrays with
// HTTP 500 ("RangeError: Maximum call stack size exceeded" in the global ValidationPipe).

const ADMIN_TOKEN = randomBytes(16).toString('hex');

describe.each(ADAPTERS)("the sample's admin API on %s", (adapter) => {
  envForSuite({ MCP_ADMIN_TOKEN: ADMIN_TOKEN });
  const server = serverForSuite(() => startSampleApp(adapter, {}));

  const stage = (body: string) =>
    request(server.origin)
      .post('/admin/keyring/stage')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .set('Content-Type', 'application/json')
      .send(body);

  const keyring = async () =>
    (
      await request(server.origin)
        .get('/admin/keyring')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    ).body as unknown;

  it('refuses a body nested deeper than 64 levels with 400 before validating it, and changes nothing', async () => {
    const before = await keyring();
    const refused = {
      statusCode: 400,
      message: 'Request body nested more than 64 levels deep',
      error: 'Bad Request',
    };
    for (const body of [
      '['.repeat(20_000) + ']'.repeat(20_000),
      '{"id":'.repeat(10_000) + '"k"' + '}'.repeat(10_000),
      '['.repeat(65) + ']'.repeat(65),
    ]) {
      const response = await stage(body);
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 400,
        body: refused,
      });
    }
    // 64 levels reach the ValidationPipe, which names what is wrong with them.
    const shallow = await stage('['.repeat(64) + ']'.repeat(64));
    expect(shallow.status).toBe(400);
    expect((shallow.body as { message: string[] }).message).toContain('id must be a string');
    expect(await keyring()).toEqual(before);
    // And the endpoint still stages a key.
    const staged = await stage(
      JSON.stringify({ id: 'k-deep', key: randomBytes(32).toString('base64') }),
    );
    expect(staged.status).toBe(200);
    expect((staged.body as { keys: { id: string }[] }).keys.map((key) => key.id)).toContain(
      'k-deep',
    );
  });
});
