// The admin page (WebChatBrowserTest): a resume-pending session listed with its reason, its transcript with the
// resumed turn shown as a system event, the mark cleared with its button, then suspended and unsuspended; another
// session purged after its confirm dialog leaves the list; the screenshot is a test artifact.
import { BASE_URL, step, run, check, screenshot } from './lib.mjs';

const conversation = process.env.HERALD_CONVERSATION;
const purged = process.env.HERALD_PURGE;
const dialogs = [];

await run(async (newPage) => {
  const page = await newPage();
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.accept();
  });
  await page.goto(BASE_URL + '/admin');
  await page.waitForSelector('#gateway-state.running');
  await page.waitForSelector('#platforms >> text=webchat');
  step('status', { state: await page.textContent('#gateway-state') });

  // Herald unreachable for a while (every admin call fails at the network level), then back: the page says
  // so, and the message goes away by itself at the next refresh
  await page.route('**/admin/api/**', (route) => route.abort('connectionrefused'));
  await page.waitForSelector('#flash >> text=cannot be reached', { timeout: 15000 });
  await page.unroute('**/admin/api/**');
  await page.waitForFunction(() => document.getElementById('flash').textContent === '', null, { timeout: 15000 });
  await page.waitForSelector('#gateway-state.running');
  step('unreachable-then-back');

  await page.selectOption('#state-filter', 'resume_pending');
  const row = page.locator('#sessions tr', { hasText: conversation });
  await row.waitFor();
  const text = await row.textContent();
  check(text.includes('restart_timeout'), 'the row does not show the reason: ' + text);
  check(/marked \d+ s ago/.test(text), 'the row does not show the age: ' + text);
  step('listed', { text });
  await screenshot(page, 'admin.png');

  await row.locator('button', { hasText: 'Transcript' }).click();
  await page.waitForSelector('#transcript-panel:not([hidden])');
  await page.waitForSelector('#transcript-key >> text=' + conversation);
  const event = await page.textContent('#transcript .row.event');
  check(event.includes('turn resumed') && !event.startsWith('user'), 'the resumed turn is not shown as a system event: ' + event);
  step('transcript', { event });

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('#transcript-downloads a', { hasText: 'Download (Markdown)' }).click(),
  ]);
  const file = await download.path();
  const markdown = (await import('node:fs')).readFileSync(file, 'utf8');
  check(markdown.startsWith('# Herald conversation: '), 'the download is not the Markdown export: ' + markdown.slice(0, 200));
  step('downloaded', { name: download.suggestedFilename(), markdown });

  await row.locator('button', { hasText: 'Clear resume mark' }).click();
  await page.waitForSelector('#flash >> text=clear resume: done');
  await page.waitForFunction((c) => ![...document.querySelectorAll('#sessions tr')].some((r) => r.textContent.includes(c)), conversation);
  step('cleared');

  await page.selectOption('#state-filter', 'all');
  const any = page.locator('#sessions tr', { hasText: conversation });
  await any.locator('button', { hasText: 'Suspend' }).click();
  await page.waitForSelector('#flash >> text=suspend: done');
  await any.locator('button', { hasText: 'Unsuspend' }).click();
  await page.waitForSelector('#flash >> text=unsuspend: done');
  await any.locator('button', { hasText: /^Suspend$/ }).waitFor();
  step('unsuspended');

  if (purged) {
    await page.locator('#sessions tr', { hasText: purged }).locator('button', { hasText: 'Purge' }).click();
    await page.waitForSelector('#flash >> text=purge: done');
    await page.waitForFunction((c) => ![...document.querySelectorAll('#sessions tr')].some((r) => r.textContent.includes(c)), purged);
    step('purged', { dialog: dialogs[dialogs.length - 1] });
  }
});
