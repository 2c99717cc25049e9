// Linked chats in the browser (LinkedChatsBrowserTest): ann, signed in, opens "Linked chats", a mistyped code is
// refused with its reason, the code /link gave in her Telegram chat (HERALD_LINK_CODE) links it, and Unlink removes it.
import { BASE_URL, step, run, check, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const ann = await newPage();
  await ann.goto(BASE_URL + '/');
  await ann.waitForSelector('#login[open]');
  await ann.fill('#login-name', 'ann');
  await ann.fill('#login-password', 'ann-long-password');
  await ann.press('#login-password', 'Enter');
  await ann.waitForSelector('#links-open:not([hidden])');
  await ann.click('#links-open');
  await ann.waitForSelector('#links-list >> text=No linked chats yet.');

  await ann.fill('#link-code', 'AAAA-AAAA');
  await ann.click('#links-form button[type=submit]');
  await ann.waitForSelector('#link-result >> text=not valid');
  step('refused', { text: await ann.textContent('#link-result') });

  await ann.fill('#link-code', process.env.HERALD_LINK_CODE.toLowerCase());
  await ann.click('#links-form button[type=submit]');
  await ann.waitForSelector('#link-result >> text=Linked: telegram:100');
  await ann.waitForSelector('#links-list li[data-identity="telegram:100"]');
  await screenshot(ann, 'linked-chats.png');
  step('linked');

  await ann.click('#links-list button[aria-label="Unlink telegram:100"]');
  await ann.waitForSelector('#links-list >> text=No linked chats yet.');
  check(await ann.inputValue('#link-code') === '', 'the code stays in the box after linking');
  step('unlinked');
});
