// Shared by the browser tests: launch Debian's Chromium through playwright-core (no browser download),
// report steps as JSON lines for the JUnit side (BrowserScript), wait for its signals on stdin.
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const BASE_URL = process.env.HERALD_URL;
export const SHOTS = process.env.HERALD_SHOTS || 'target/screenshots';
const CHROMIUM = process.env.HERALD_CHROMIUM || '/usr/bin/chromium';

export function step(name, data = {}) {
  console.log(JSON.stringify({ step: name, ...data }));
}

const signals = [];
const waiters = [];
createInterface({ input: process.stdin }).on('line', (line) => {
  const i = waiters.findIndex((w) => w.name === line.trim());
  if (i >= 0) waiters.splice(i, 1)[0].resolve();
  else signals.push(line.trim());
});

/** Resolves when the JUnit side sends this line. */
export function signal(name, timeoutMs = 120000) {
  const i = signals.indexOf(name);
  if (i >= 0) {
    signals.splice(i, 1);
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    waiters.push({ name, resolve });
    setTimeout(() => reject(new Error('no signal "' + name + '" within ' + timeoutMs + ' ms')), timeoutMs).unref();
  });
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    // HERALD_CHROMIUM_ARGS adds flags (space-separated), e.g. a fake microphone playing a WAV file
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      ...(process.env.HERALD_CHROMIUM_ARGS || '').split(' ').filter(Boolean)],
  });
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

export async function screenshot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, name);
  await page.screenshot({ path });
  step('screenshot', { path });
}

/** Runs the test body; prints done or fail (with a screenshot of every open page), exits accordingly. */
export async function run(body) {
  const browser = await launch();
  const pages = [];
  const newPage = async (options = {}) => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 760 }, ...options });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error: ' + e.message));
    page.on('console', (m) => { if (m.type() === 'error') console.error('console: ' + m.text()); });
    pages.push(page);
    return page;
  };
  const t0 = Date.now();
  try {
    await body(newPage);
    step('done', { ms: Date.now() - t0 });
    await browser.close();
    process.exit(0);
  } catch (e) {
    for (let i = 0; i < pages.length; i++) {
      try { await screenshot(pages[i], 'failure-' + i + '.png'); } catch (ignored) { /* best effort */ }
    }
    step('fail', { error: String(e && e.stack || e) });
    await browser.close().catch(() => {});
    process.exit(1);
  }
}

/** Number of elements matching selector whose text includes text. */
export async function countText(page, selector, text) {
  return page.$$eval(selector, (els, t) => els.filter((e) => e.textContent.includes(t)).length, text);
}

/** Sends a message through the composer like a person (type, Enter). */
export async function say(page, text) {
  await page.fill('#composer-text', text);
  await page.press('#composer-text', 'Enter');
}
