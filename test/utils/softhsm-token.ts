import { spawnSync } from 'node:child_process';

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
