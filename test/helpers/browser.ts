// Debian's Chromium driven by playwright-core (its own browser download cannot work here), for
// end-to-end tests of pages Hearth serves. Flags: headless, no sandbox (root), and nothing that
// would reach out to the network by itself.
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export function chromiumPath(): string {
  const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || true']).toString().trim();
  if (!found) throw new Error('chromium is not installed (apt-get install chromium; .ci/run does it)');
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
