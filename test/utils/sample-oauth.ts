import { startAuthorizationServer, type AuthorizationServer } from './authorization-server';

type SampleApp = typeof import('../fixtures/sample-app');

/** The sample app configured as an OAuth protected resource of a live authorization server. */
export interface SampleBehindAuthorizationServer {
  readonly as: AuthorizationServer;
  readonly sample: SampleApp;
}

const VARIABLES = ['SAMPLE_AUTH', 'OAUTH_ISSUER', 'OAUTH_AUDIENCE'];

/**
 * Registers the suite's `beforeAll`/`afterAll`: starts an authorization server, sets
 * SAMPLE_AUTH=oauth and OAUTH_ISSUER, then requires the sample (its modules read the variables
 * when they load, so only now that they are set); afterwards stops the server and unsets what it set.
 */
export function sampleBehindAuthorizationServer(): SampleBehindAuthorizationServer {
  const saved = { ...process.env };
  let as: AuthorizationServer | undefined;
  let sample: SampleApp | undefined;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    Object.assign(process.env, { SAMPLE_AUTH: 'oauth', OAUTH_ISSUER: as.issuer });
    delete process.env.OAUTH_AUDIENCE;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    sample = require('../fixtures/sample-app') as SampleApp;
  });
  afterAll(async () => {
    await as?.stop();
    for (const key of VARIABLES) if (saved[key] === undefined) delete process.env[key];
  });
  return {
    get as() {
      if (!as) throw new Error('the authorization server starts in beforeAll');
      return as;
    },
    get sample() {
      if (!sample) throw new Error('the sample is required in beforeAll');
      return sample;
    },
  };
}
