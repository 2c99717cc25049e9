// The web chat and the admin page on a phone, 390x844 (WebChatRenderBrowserTest): the conversation list is
// a drawer opened from the menu button, the title is not cut short, nothing overflows the screen sideways,
// wide content (code, tables) scrolls inside its own box, and the admin page's actions stay reachable. The
// answers come from the built-in demo model ("show formatting").
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** How far the page can scroll sideways: 0 when nothing is wider than the screen. */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

await run(async (newPage) => {
  const page = await newPage(PHONE);
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');
  const closed = await page.locator('#sidebar').boundingBox();
  check(closed.x + closed.width <= 0, 'the conversation list covers the chat: ' + JSON.stringify(closed));
  check(await page.locator('#menu').isVisible(), 'no menu button');
  const title = await page.$eval('#title', (h) => ({ text: h.textContent, cut: h.scrollWidth > h.clientWidth, width: h.clientWidth }));
  check(!title.cut, 'the title is cut short: ' + JSON.stringify(title));
  step('closed', { title });

  await say(page, 'show formatting');
  await page.waitForSelector('.msg.assistant:not(.draft) h2 >> text=Formatting');
  await page.waitForTimeout(300);
  check(await overflow(page) <= 0, 'the chat scrolls sideways by ' + (await overflow(page)) + ' px');
  const table = await page.$eval('.msg.assistant:not(.draft) .table-scroll', (t) => ({ inside: t.getBoundingClientRect().right <= window.innerWidth }));
  check(table.inside, 'the table sticks out of the answer');
  await page.locator('.msg.assistant:not(.draft)').last().evaluate((m) => m.scrollIntoView({ block: 'end' }));
  await screenshot(page, 'webchat-phone.png');
  step('answer');

  await page.click('#menu');
  await page.waitForFunction(() => document.getElementById('sidebar').getBoundingClientRect().left >= 0);
  await page.waitForSelector('#backdrop:not([hidden])');
  check(await page.locator('#conversations li').count() === 1, 'the drawer lists no conversation');
  await screenshot(page, 'webchat-phone-menu.png');
  await page.click('#new-conversation');
  await page.waitForFunction(() => document.getElementById('sidebar').getBoundingClientRect().right <= 0);
  await page.waitForSelector('#empty >> text=Start a conversation');
  await page.click('#menu');
  await page.click('#conversations li:nth-child(2) button');
  await page.waitForSelector('.msg.assistant:not(.draft) h2 >> text=Formatting');
  step('drawer');

  const admin = await newPage(PHONE);
  await admin.goto(BASE_URL + '/admin');
  await admin.waitForSelector('#gateway-state.running');
  await admin.waitForSelector('#sessions tr[data-key]');
  check(await overflow(admin) <= 0, 'the admin page scrolls sideways by ' + (await overflow(admin)) + ' px');
  const scroller = await admin.$eval('#sessions', (b) => { const s = b.closest('.table-scroll'); return { scrolls: s.scrollWidth > s.clientWidth }; });
  check(scroller.scrolls, 'the sessions table does not scroll inside its panel');
  await screenshot(admin, 'admin-phone.png');
  const button = admin.locator('#sessions tr[data-key] button', { hasText: 'Transcript' }).first();
  await button.scrollIntoViewIfNeeded();
  await button.click();
  await admin.waitForSelector('#transcript-panel:not([hidden])');
  step('admin', scroller);
});
