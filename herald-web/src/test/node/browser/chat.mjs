// The web chat against an in-process Herald (WebChatBrowserTest): a streamed round trip, a tool call
// shown compactly, an approval answered with a button, and the screenshot used in the README.
import { BASE_URL, step, run, check, countText, say, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage({ viewport: { width: 1280, height: 940 } });
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');
  step('connected');

  // 1. streaming: the draft shows the first words while the last one is still on its way
  await say(page, 'Tell me slowly how streaming works');
  await page.waitForSelector('.msg.user:not(.pending) >> text=Tell me slowly how streaming works');
  const draft = await page.waitForSelector('.msg.assistant.draft >> text=/Streaming this answer slowly/');
  const partial = (await draft.textContent()).replace(/^Herald/, '');
  check(!partial.includes('word.'), 'the draft already had the whole answer: ' + partial);
  step('streamed-partial', { partial });
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Streaming this answer slowly, word by word.');
  await page.waitForFunction(() => document.querySelectorAll('.msg.draft').length === 0);
  const answers = await countText(page, '.msg', 'Streaming this answer slowly, word by word.');
  check(answers === 1, 'the answer is shown ' + answers + ' times');
  step('round-trip', { answers });

  // 2. a tool call, shown as one compact line with its result state
  await say(page, "What's the weather in Lisbon?");
  await page.waitForSelector('.tool.ok >> text=web_search');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=/21 °C and sunny/');
  step('tool-shown', { tools: await page.locator('.tool').count() });

  // 3. an approval question answered with its button
  await say(page, 'Please deploy the site to production');
  await page.waitForSelector('.prompt >> text=Approval needed');
  await page.click('.prompt button:has-text("Approve")');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Deployed: ./deploy.sh production finished.');
  check(await page.locator('.prompt.answered').count() === 1, 'the approval card was not marked answered');
  step('approved');

  await page.waitForFunction(() => document.querySelectorAll('.msg.draft').length === 0);
  await page.locator('#messages').evaluate((m) => { m.scrollTop = 0; });
  await screenshot(page, 'webchat.png');
  step('conversation', { id: await page.evaluate(() => JSON.parse(localStorage.getItem('herald.chat.v1')).current) });

  // 4. the buttons for /stop and /new; the new session continues below without a divider
  await page.click('#cmd-stop');
  await page.waitForSelector('.msg.command >> text=Nothing was running');
  await page.click('#cmd-new');
  await page.waitForSelector('.msg.command >> text=New session started');
  await say(page, 'and now?');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=You said: and now?');
  check(await page.locator('.sys.divider').count() === 0, 'a session divider was drawn');
  step('buttons');
});
