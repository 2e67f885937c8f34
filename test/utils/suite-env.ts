/**
 * Environment variables set for the tests of the block that calls this (a file, a `describe`):
 * set in a `beforeAll` declared here, so a server started in a later-declared `beforeAll` reads
 * them, and restored (or removed) after the block's last test. For what an app reads on every
 * request rather than once at startup (the sample's `MCP_ADMIN_TOKEN`).
 */
export function envForSuite(vars: Record<string, string>): void {
  const saved = new Map<string, string | undefined>();
  beforeAll(() => {
    for (const [name, value] of Object.entries(vars)) {
      saved.set(name, process.env[name]);
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}
