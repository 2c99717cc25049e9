// Tool calls as the web chat shows them (ToolStateBrowserTest): the approval question shows the whole command,
// a denied call's line says "denied" (not "done") while the turn runs and again after a reload.
import { BASE_URL, step, run, check, say } from './lib.mjs';

const COMMAND = process.env.HERALD_COMMAND;

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');

  await say(page, 'Clean up my home folder');
  const prompt = await page.waitForSelector('.prompt >> text=Approval needed');
  const question = await prompt.textContent();
  check(question.includes(COMMAND), 'the approval question does not show the whole command: ' + question);
  step('asked', { length: COMMAND.length });

  await page.click('.prompt button:has-text("Deny")');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=I did not run it.');
  const live = page.locator('.tool[data-state="denied"] >> text=shell');
  await live.first().waitFor();
  const words = await page.$$eval('.tool', (lines) => lines.map((l) => l.querySelector('.tool-state').textContent));
  check(!words.includes('done'), 'a tool line says done: ' + JSON.stringify(words));
  step('denied-live', { words });

  await page.reload();
  await page.waitForSelector('#connection.connected');
  await page.waitForSelector('.msg.assistant >> text=I did not run it.');
  const after = await page.$$eval('.tool', (lines) => lines.map((l) => l.className + ':' + l.querySelector('.tool-state').textContent));
  check(after.length === 1 && after[0].includes('denied:denied'), 'after a reload the tool line is ' + JSON.stringify(after));
  step('denied-after-reload', { after });
});
