import request from 'supertest';

/**
 * One call to the keyring admin API (`/admin/keyring`, as the sample mounts it) of `server` as the
 * holder of `adminToken`: `GET /admin/keyring` without a body, `POST /admin/keyring/<action>` with one.
 */
export function keyringAdmin(
  server: { readonly url: URL },
  adminToken: string,
  action: string,
  body?: object,
): request.Test {
  const call = body
    ? request(server.url.origin).post(`/admin/keyring/${action}`).send(body)
    : request(server.url.origin).get('/admin/keyring');
  return call.set('Authorization', `Bearer ${adminToken}`);
}
