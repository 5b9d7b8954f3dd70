// What every browser test starts the same way: Debian's Chromium, headless,
// with a profile of its own (no first-run work, no network of its own), and
// axe-core for the accessibility checks.
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

export const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

// A persistent context in `profileDir` with a 1280x900 viewport unless
// `options` says otherwise (they are playwright's launch options).
export function launchChromium(profileDir, options = {}) {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium', viewport: { width: 1280, height: 900 }, args: ARGS, ...options,
  });
}

// axe-core's violations on the page, one readable line each.
export async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
}
