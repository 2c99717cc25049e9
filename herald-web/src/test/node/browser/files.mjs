// Files the agent sends, as a web chat user sees them (WebChatFilesTest): under the answer, a link per file that
// downloads its bytes, and an image shown inline; both again after the page is reloaded.
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');

  await say(page, 'send me the report and the chart');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Here are both.');
  await page.waitForSelector('.msg.assistant .sent-file >> text=report.pdf');
  const links = await page.$$eval('.msg.assistant .sent-file a.file-link', (as) => as.map((a) => ({ text: a.textContent, href: a.getAttribute('href') })));
  step('links', { links });

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.sent-file a.file-link >> text=report.pdf')]);
  const path = await download.path();
  const { readFileSync } = await import('node:fs');
  step('downloaded', { name: download.suggestedFilename(), bytes: readFileSync(path).toString('utf8') });

  await page.waitForFunction(() => {
    const img = document.querySelector('.msg.assistant .sent-file img.sent-image');
    return img && img.complete && img.naturalWidth > 0;
  });
  const size = await page.$eval('.msg.assistant .sent-file img.sent-image', (img) => [img.naturalWidth, img.naturalHeight]);
  step('image', { width: size[0], height: size[1] });
  await screenshot(page, 'chat-files.png');

  await page.reload();
  await page.waitForSelector('#connection.connected');
  await page.waitForSelector('.msg.assistant .sent-file >> text=report.pdf');
  const again = await page.$$eval('.msg.assistant .sent-file a.file-link', (as) => as.length);
  check(again === 2, 'after a reload the answer lists ' + again + ' file link(s), not 2');
  step('reloaded', { links: again });
});
