// The admin page's scheduled jobs panel (ScheduleAdminTest): the job listed with its schedule and next run,
// Run now showing its result once the turn has ended, Pause and Resume, Delete after confirming.
import { BASE_URL, step, run, check, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage();
  page.on('dialog', (d) => d.accept());
  await page.goto(BASE_URL + '/admin');
  const row = page.locator('#schedules tr', { hasText: 'digest' });
  await row.waitFor();
  const text = await row.textContent();
  check(text.includes('0 7 * * *') && text.includes('Europe/Berlin') && text.includes('next ') && text.includes('not run yet'),
    'the row does not show the schedule, zone, next run and result: ' + text);
  step('listed', { text });

  await row.locator('button', { hasText: 'Run now' }).click();
  await page.waitForSelector('#flash >> text=run now: started');
  await row.locator('.pill.ok', { hasText: 'ok' }).waitFor({ timeout: 30000 });
  step('ran', { text: await row.textContent() });
  await screenshot(page, 'admin-schedules.png');

  await row.locator('button', { hasText: 'Pause' }).click();
  await row.locator('.pill', { hasText: 'paused' }).waitFor();
  await row.locator('button', { hasText: 'Resume' }).click();
  await row.locator('.pill', { hasText: 'active' }).waitFor();
  step('paused-and-resumed');

  await row.locator('button', { hasText: 'Delete' }).click();
  await page.waitForSelector('#schedules >> text=No scheduled jobs.');
  step('deleted');
});
