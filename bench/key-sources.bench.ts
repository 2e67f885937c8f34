/**
 * The sealed round's cost with each key source, in one run (docs/key-rotation.md): seal + open of
 * the same request state through RequestStateSealer and the AES-256-GCM protector, with
 * - an in-memory key (raw material in the keyring: the baseline),
 * - an envelope key (a data key wrapped under an HSM wrapping key, unwrapped once at load: what an
 *   AWS KMS data key is too — KMS is called at load and stage only),
 * - a key resident in a SoftHSM2 token (AES-GCM inside the token on every seal and open).
 * Passes are interleaved; medians compared to the in-memory key measured in the same run.
 *
 * Needs SoftHSM2 (`apt-get install softhsm2`). Run: npm run bench:keys
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pkcs11KeyWrapper } from '../src/entry/pkcs11';
import { KeyringManager } from '../src/keyring/keyring-manager.service';
import { AesGcmRequestStateProtector } from '../src/request-state/sealing/aes-gcm-request-state.protector';
import type { RequestStateBinding } from '../src/request-state/sealing/request-state-binding';
import type { RequestStateLimits } from '../src/request-state/sealing/request-state-limits';
import { RequestStateSealer } from '../src/request-state/sealing/request-state.sealer';

const PASSES = Number(process.env.PASSES ?? 7);
const ROUNDS = Number(process.env.ROUNDS ?? 500);

const state = {
  phase: 'awaiting-approval',
  transfer: { amount: '12.50', to: 'acct-4711', memo: 'Quarterly supplier invoice #2026-118' },
};
const binding: RequestStateBinding = {
  endpoint: '/mcp',
  protocolVersion: '2026-07-28',
  method: 'tools/call',
  target: 'transfer_funds',
  partition: 'user:alice',
  stableParams: '{"arguments":{"amount":1e2,"to":"acct-42"},"name":"transfer_funds"}',
  stableArguments: () => '{"amount":1e2,"to":"acct-42"}',
  definition: 'HxVn0dQ2mZ3o8b5s1Y7p4cWk9aTfRgLjEuIyOwKqPvB',
};
const limits = {
  maxEncodedBytes: 65_536,
  maxDecodedBytes: 49_152,
  maxLifetimeMs: 900_000,
  maxRounds: 10,
} as RequestStateLimits;

interface Token {
  SOFTHSM2_CONF: string;
  PKCS11_MODULE: string;
  PKCS11_TOKEN_LABEL: string;
  PKCS11_PIN: string;
  wrapped: Record<string, string>;
}

async function sealerFor(
  keys: Record<string, unknown>,
  active: string,
  wrapper?: Pkcs11KeyWrapper,
): Promise<RequestStateSealer> {
  const keyring = new KeyringManager({ keyring: { active, keys } } as never);
  await keyring.load(wrapper);
  return new RequestStateSealer(limits, new AesGcmRequestStateProtector(keyring));
}

/** Mean µs of one sealed round (seal, then open) over `ROUNDS` rounds. */
async function roundMicros(sealer: RequestStateSealer): Promise<number> {
  let requestId = 1;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) {
    const token = await sealer.seal(
      state,
      { approval: 'elicitation' },
      binding,
      requestId,
      undefined,
    );
    await sealer.open(token, binding, requestId + 1);
    requestId += 2;
  }
  return Number(process.hrtime.bigint() - started) / 1000 / ROUNDS;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hsm-'));
  const made = spawnSync(
    process.execPath,
    [
      'scripts/pkcs11/softhsm-token.mjs',
      '--dir',
      dir,
      '--resident',
      'k1',
      '--wrapping',
      'wrap',
      '--wrapped',
      'd1',
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`softhsm-token.mjs failed: ${made.stderr}`);
  const token = JSON.parse(made.stdout) as Token;
  // SoftHSM reads its configuration from the process environment when it initializes.
  process.env.SOFTHSM2_CONF = token.SOFTHSM2_CONF;
  const wrapper = new Pkcs11KeyWrapper({
    module: token.PKCS11_MODULE,
    tokenLabel: token.PKCS11_TOKEN_LABEL,
    pin: token.PKCS11_PIN,
    wrappingKeyLabel: 'wrap',
  });
  try {
    const sources: [string, RequestStateSealer][] = [
      ['in-memory key (baseline)', await sealerFor({ m1: randomBytes(32) }, 'm1')],
      [
        'envelope key (unwrapped once)',
        await sealerFor({ d1: { pkcs11Wrapped: token.wrapped.d1 } }, 'd1', wrapper),
      ],
      ['HSM-resident key (SoftHSM2)', await sealerFor({ k1: { pkcs11: 'k1' } }, 'k1', wrapper)],
    ];
    for (const [, sealer] of sources) await roundMicros(sealer); // warm-up
    const samples = new Map<string, number[]>(sources.map(([name]) => [name, []]));
    for (let pass = 0; pass < PASSES; pass++)
      for (const [name, sealer] of sources) samples.get(name)?.push(await roundMicros(sealer));
    const baseline = median(samples.get(sources[0][0]) ?? []);
    console.log(
      `sealed round (seal + open), median of ${PASSES} passes × ${ROUNDS} rounds, one run:`,
    );
    for (const [name] of sources) {
      const micros = median(samples.get(name) ?? []);
      console.log(
        `  ${name.padEnd(32)} ${micros.toFixed(1).padStart(8)} µs  ${(micros / baseline).toFixed(2)}×`,
      );
    }
  } finally {
    wrapper.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
