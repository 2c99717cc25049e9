// Access with a key configured (WebChatBrowserTest): the data endpoints refuse a browser without the
// session cookie, the page asks for the key once, a wrong key is refused, the right one gives an
// HttpOnly SameSite=Strict cookie and the chat works.
import { BASE_URL, step, run, check } from './lib.mjs';

const KEY = process.env.HERALD_KEY;

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#login[open]');
  const before = await page.evaluate(async () => (await fetch('/chat/api/conversations')).status);
  check(before === 401, 'without the key the API answered ' + before);
  step('refused', { status: before });

  await page.fill('#login-key', 'not-the-key');
  await page.press('#login-key', 'Enter');
  await page.waitForSelector('.login-error >> text=wrong key');
  step('wrong-key');

  await page.fill('#login-key', KEY);
  await page.press('#login-key', 'Enter');
  await page.waitForSelector('#login:not([open])', { state: 'attached' });
  await page.waitForSelector('#connection.connected');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'herald_session');
  check(session && session.httpOnly && session.sameSite === 'Strict', 'cookie flags: ' + JSON.stringify(session));
  check(session.expires === -1, 'the cookie is not a session cookie: ' + session.expires);
  const visible = await page.evaluate(() => document.cookie);
  check(!visible.includes('herald_session'), 'the session cookie is readable by scripts');
  step('logged-in', { httpOnly: session.httpOnly, sameSite: session.sameSite });

  await page.fill('#composer-text', 'hello with a key');
  await page.press('#composer-text', 'Enter');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=You said: hello with a key');
  const after = await page.evaluate(async () => (await fetch('/chat/api/conversations')).status);
  check(after === 200, 'with the cookie the API answered ' + after);
  step('chatted');
});
