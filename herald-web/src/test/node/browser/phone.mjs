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
  const header = (await page.locator('.chat-header').boundingBox()).height;
  check(header <= 64, 'the header takes ' + header + ' px of the screen');
  const boxFont = await page.$eval('#input, .composer textarea', (t) => parseFloat(getComputedStyle(t).fontSize));
  check(boxFont >= 16, 'the message box is ' + boxFont + ' px: iPhone Safari zooms in on focus');
  const small = await page.$$eval('.chat-header button, .composer button, .composer .attach', (els) => els
    .filter((b) => b.offsetParent !== null).map((b) => ({ id: b.id || b.className, h: b.getBoundingClientRect().height, w: b.getBoundingClientRect().width }))
    .filter((b) => b.h < 44 || b.w < 44));
  check(small.length === 0, 'touch targets under 44 px: ' + JSON.stringify(small));
  check(!(await page.locator('#rename').isVisible()), 'the conversation actions take a row of their own');
  await page.click('#more');
  for (const id of ['#rename', '#delete', '#cmd-new', '#cmd-stop']) {
    const box = await page.locator(id).boundingBox();
    check(box && box.height >= 44 && box.x >= 0 && box.x + box.width <= 390, id + ' is not a reachable 44 px target: ' + JSON.stringify(box));
  }
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.body.classList.contains('actions-open'));
  check(!(await page.locator('#rename').isVisible()), 'Escape leaves the actions menu open');
  step('closed', { title, header, boxFont });

  await say(page, 'show formatting');
  await page.waitForSelector('.msg.assistant:not(.draft) h2 >> text=Formatting');
  await page.waitForTimeout(300);
  check(await overflow(page) <= 0, 'the chat scrolls sideways by ' + (await overflow(page)) + ' px');
  const table = await page.$eval('.msg.assistant:not(.draft) .table-scroll', (t) => ({ inside: t.getBoundingClientRect().right <= window.innerWidth }));
  check(table.inside, 'the table sticks out of the answer');
  // no table cell breaks inside a word ("Glob/ex"): each word of a cell lies on one line
  const broken = await page.$$eval('.msg.assistant:not(.draft) .md td, .msg.assistant:not(.draft) .md th', (cells) => {
    const out = [];
    for (const cell of cells) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.data.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  });
  check(broken.length === 0, 'table cells break inside words: ' + JSON.stringify(broken));
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
