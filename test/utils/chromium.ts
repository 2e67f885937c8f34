import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; scripts/system-packages.mjs installs it). */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium the browser suites drive: `CHROMIUM_PATH`, else Debian's. Fails, never skips, when
 * it is missing, with the one command that installs it.
 */
export function chromiumExecutable(): string {
  const path = process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
  if (!existsSync(path))
    throw new Error(
      `Chromium is not installed (no ${path}): run "sudo apt-get install -y --no-install-recommends chromium" ` +
        '(npm test installs it when it may; scripts/system-packages.mjs), or set CHROMIUM_PATH',
    );
  return path;
}

/**
 * Launches a headless Chromium with a fresh profile that resolves every name in `hosts` to
 * 127.0.0.1, so pages can be served from origins that are not local (what the DNS-rebinding check
 * refuses) by servers on loopback. Nothing of it talks to the network: no proxy, no background
 * or component updates, no QUIC. Close it when done.
 */
export function launchChromium(hosts: readonly string[]): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumExecutable(),
    headless: true,
    chromiumSandbox: false,
    timeout: 60_000,
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--no-proxy-server',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`,
    ],
  });
}
