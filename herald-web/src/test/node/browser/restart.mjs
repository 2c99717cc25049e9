// A real gateway restart with the chat open (herald-app WebChatRestartBrowserTest): the page shows
// "reconnecting…", keeps a message typed while Herald is down, and after the restart shows the resumed
// turn's answer exactly once and delivers the kept message exactly once.
import { BASE_URL, step, run, check, countText, say, signal, screenshot } from './lib.mjs';

const FIRST = 'Please write the quarterly report';
const OFFLINE = 'Also add a one-line summary';
const RESUMED = 'The quarterly report is finished.';
const ECHO = 'echo: ' + OFFLINE;

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');
  step('connected');

  await say(page, FIRST);
  await page.waitForSelector('.msg.assistant.draft >> text=Working on');
  step('streaming');

  // the test restarts Herald now (SIGUSR1: drain, exit 75); the page notices by itself
  await page.waitForSelector('#connection.reconnecting', { timeout: 60000 });
  const notice = await page.locator('.sys.notice').count();
  step('reconnecting', { notices: notice });

  await say(page, OFFLINE);
  await page.waitForSelector('.msg.user.queued >> text=' + OFFLINE);
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('herald.chat.v1')).outbox.length);
  check(kept === 1, 'the offline message is not kept in localStorage: ' + kept);
  step('typed-offline', { kept });

  await signal('restarted');
  await page.waitForSelector('#connection.connected', { timeout: 90000 });
  step('reconnected');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=' + RESUMED, { timeout: 60000 });
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=' + ECHO, { timeout: 60000 });
  await page.waitForTimeout(1500); // let any late frame or sync land before counting
  const resumed = await countText(page, '.msg', RESUMED);
  const echoed = await countText(page, '.msg', ECHO);
  const sent = await countText(page, '.msg.user', OFFLINE);
  const outbox = await page.evaluate(() => JSON.parse(localStorage.getItem('herald.chat.v1')).outbox.length);
  check(resumed === 1, 'the resumed answer is shown ' + resumed + ' times');
  check(echoed === 1, 'the answer to the offline message is shown ' + echoed + ' times');
  check(sent === 1, 'the offline message is shown ' + sent + ' times');
  check(outbox === 0, 'the outbox still holds ' + outbox + ' message(s)');
  const resumeNote = await page.locator('.sys.resume').count();
  step('resumed', { resumed, echoed, sent, resumeNote });
  await screenshot(page, 'webchat-after-restart.png');
});
