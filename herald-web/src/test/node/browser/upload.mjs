// An image attached in the web chat (WebChatImageTest): chosen with the Image button, uploaded, named in the composer,
// sent with the message, and answered by a model that sees it.
import { BASE_URL, step, run, check, say } from './lib.mjs';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');

  await page.setInputFiles('#composer-image', { name: 'dot.png', mimeType: 'image/png', buffer: PNG });
  await page.waitForSelector('#composer-attachments >> text=dot.png');
  step('attached');

  await say(page, 'what is it?');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=A tiny square.');
  const chips = await page.textContent('#composer-attachments');
  check(chips === '', 'the composer still lists attachments after sending: ' + chips);
  step('answered');
});
