import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** What signs DPoP proofs: the official client's `DpopSession`, or anything shaped like it. */
export interface DpopProofSigner {
  buildProof(request: { htm: string; htu: string | URL; accessToken?: string }): Promise<string>;
}

/** A running oidc-provider (test/utils/authorization-server.mjs) and how to get its tokens. */
export interface AuthorizationServer {
  readonly issuer: string;
  /** How a resource server introspects its opaque tokens: the endpoint and the `mcp-server` client. */
  readonly introspection: { endpoint: string; clientId: string; clientSecret: string };
  /**
   * A client-credentials token of `client` (its secret is `<client>-secret`) for `resource`;
   * with `dpop`, bound to its key (the token request carries its proof).
   */
  token(
    client: string,
    options: { scope?: string; resource?: string; dpop?: DpopProofSigner },
  ): Promise<string>;
  stop(): Promise<void>;
}

/** Starts the authorization server on 127.0.0.1, port 0, as a child process. */
export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'authorization-server.mjs')],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`authorization server exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const { issuer } = JSON.parse(line) as { issuer: string };
  return {
    issuer,
    introspection: {
      endpoint: `${issuer}/token/introspection`,
      clientId: 'mcp-server',
      clientSecret: 'mcp-server-secret',
    },
    async token(client, { scope, resource, dpop }) {
      const body = new URLSearchParams({ grant_type: 'client_credentials' });
      if (scope !== undefined) body.set('scope', scope);
      if (resource !== undefined) body.set('resource', resource);
      const tokenUrl = `${issuer}/token`;
      const response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          ...(dpop && { dpop: await dpop.buildProof({ htm: 'POST', htu: tokenUrl }) }),
        },
        body,
      });
      const answer = (await response.json()) as { access_token?: string };
      if (!answer.access_token) throw new Error(`no token: ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
