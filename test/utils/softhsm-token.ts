import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forSuite } from './suite-resource';

/** A SoftHSM2 token's variables, as scripts/pkcs11/softhsm-token.mjs prints them. */
export interface SoftHsmToken {
  SOFTHSM2_CONF: string;
  PKCS11_MODULE: string;
  PKCS11_TOKEN_LABEL: string;
  PKCS11_PIN: string;
}

/**
 * A SoftHSM2 token of its own in `dir`, made by the project's script (the one the docs give
 * operators) with `pin` and the script's other flags (`--resident k1,k2`, `--signing audit`, …);
 * `Printed` names what those flags add to what it prints (`--wrapped`: `wrapped`).
 */
export function makeSoftHsmToken<Printed extends object = object>(
  dir: string,
  pin: string,
  flags: string[],
): SoftHsmToken & Printed {
  const made = spawnSync(
    process.execPath,
    ['scripts/pkcs11/softhsm-token.mjs', '--dir', dir, '--pin', pin, ...flags],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`softhsm-token.mjs failed: ${made.stderr}`);
  return JSON.parse(made.stdout) as SoftHsmToken & Printed;
}

/** A token {@link softHsmTokenForSuite} makes, and the folder it lives in. */
export interface SuiteSoftHsmToken<Printed extends object = object> {
  /** The token's folder (also a place for the suite's own sockets and files). */
  readonly dir: string;
  readonly token: SoftHsmToken & Printed;
}

/**
 * A SoftHSM2 token for the tests of the block that calls this (a file, a `describe`): made in a
 * temporary folder before the block's first test (see {@link makeSoftHsmToken}), the folder removed
 * after its last. SoftHSM reads its configuration once per process, so one token serves a file.
 */
export function softHsmTokenForSuite<Printed extends object = object>(
  pin: string,
  flags: string[],
): SuiteSoftHsmToken<Printed> {
  return forSuite(
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-hsm-'));
      return { dir, token: makeSoftHsmToken<Printed>(dir, pin, flags) };
    },
    ({ dir }) => rmSync(dir, { recursive: true, force: true }),
  );
}

/** The environment of a process whose keys live in `token` (`MCP_KEY_SOURCE=pkcs11`). */
export function pkcs11KeySourceEnv(token: SoftHsmToken): Record<string, string> {
  return {
    MCP_KEY_SOURCE: 'pkcs11',
    PKCS11_MODULE: token.PKCS11_MODULE,
    PKCS11_TOKEN_LABEL: token.PKCS11_TOKEN_LABEL,
    PKCS11_PIN: token.PKCS11_PIN,
    SOFTHSM2_CONF: token.SOFTHSM2_CONF,
  };
}
