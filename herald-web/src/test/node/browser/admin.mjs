// The admin page (WebChatBrowserTest): a resume-pending session listed with its reason, cleared with
// its button; the screenshot is a test artifact.
import { BASE_URL, step, run, check, screenshot } from './lib.mjs';

const conversation = process.env.HERALD_CONVERSATION;

await run(async (newPage) => {
  const page = await newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(BASE_URL + '/admin');
  await page.waitForSelector('#gateway-state.running');
  await page.waitForSelector('#platforms >> text=webchat');
  step('status', { state: await page.textContent('#gateway-state') });

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
  step('transcript');

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
});
