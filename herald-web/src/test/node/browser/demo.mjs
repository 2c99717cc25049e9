// The built-in demo model in the web chat (WebChatRenderBrowserTest): without a configured model a newcomer
// still sees a real tool call, an approval question answered with a button, and a streamed answer, each
// labelled as the demo.
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');

  await page.click('.suggestion:has-text("list my files")');
  await page.waitForSelector('.tool >> text=list_dir');
  const listed = page.locator('.msg.assistant:not(.draft)', { hasText: 'answered' }).last();
  await listed.waitFor();
  const text = await listed.locator('.text').textContent();
  check(text.startsWith('[demo model]') && (await listed.locator('.code-block pre').count()) === 1, 'the listing: ' + text);
  step('tool', { text });

  await say(page, 'run a command');
  await page.waitForSelector('.prompt >> text=shell');
  await page.click('.prompt button:has-text("Approve")');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Hello from the demo model');
  step('approved');

  await say(page, 'tell me a story');
  const draft = await page.waitForSelector('.msg.assistant.draft >> text=Once upon a time');
  const partial = await draft.textContent();
  check(!partial.includes('exactly once'), 'the story arrived in one piece: ' + partial);
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=/as a real model.s answer is/');
  step('streamed', { partial: partial.length });
  await page.locator('.msg.assistant:not(.draft)', { hasText: 'run a shell command' }).first().evaluate((m) => m.scrollIntoView());
  await screenshot(page, 'webchat-demo.png');

  await say(page, 'show formatting');
  const formatted = page.locator('.msg.assistant:not(.draft)', { has: page.locator('h2') }).last();
  await formatted.waitFor();
  check(await formatted.locator('table').count() === 1 && await formatted.locator('.code-block').count() === 1, 'the formatting answer');
  await formatted.evaluate((m) => m.scrollIntoView({ block: 'end' }));
  await screenshot(page, 'webchat-formatting.png');
  step('formatting');
});
