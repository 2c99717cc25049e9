// Web accounts in the browser (AccountsBrowserTest): on a fresh install the admin page offers to create the first
// admin; the admin adds a user in the Users panel; the user signs in on the chat (a wrong password is refused) and
// chats and makes an API key (listed with its owner on the admin page); the admin signs the user out everywhere and the user's page asks to sign in again.
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const admin = await newPage();
  admin.on('dialog', (d) => d.accept());
  await admin.goto(BASE_URL + '/admin');
  await admin.click('#users-first-admin');
  await admin.waitForSelector('#login[open] >> text=Create the first admin');
  await admin.fill('#login-name', 'ann');
  await admin.fill('#login-password', 'ann-long-password');
  await admin.press('#login-password', 'Enter');
  await admin.waitForSelector('#signed-in >> text=ann (admin)');
  step('first-admin');

  await admin.fill('#user-name', 'bob');
  await admin.fill('#user-password', 'bob-long-password');
  await admin.click('#user-create button[type=submit]');
  await admin.waitForSelector('#users tr[data-user=bob] >> text=active');
  await screenshot(admin, 'admin-users.png');
  step('user-added');

  const bob = await newPage();
  await bob.goto(BASE_URL + '/');
  await bob.waitForSelector('#login[open] >> text=Sign in to Herald');
  await bob.fill('#login-name', 'bob');
  await bob.fill('#login-password', 'not-bobs-password');
  await bob.press('#login-password', 'Enter');
  await bob.waitForSelector('.login-error >> text=wrong name or password');
  step('wrong-password');
  await bob.fill('#login-password', 'bob-long-password');
  await bob.press('#login-password', 'Enter');
  await bob.waitForSelector('#login:not([open])', { state: 'attached' });
  await bob.waitForSelector('#signed-in >> text=bob');
  await say(bob, 'hello as bob');
  await bob.waitForSelector('.msg.assistant:not(.draft) >> text=You said: hello as bob');
  const adminApi = await bob.evaluate(async () => (await fetch('/admin/api/users')).status);
  check(adminApi === 403, 'a user on the admin API got ' + adminApi);
  step('bob-chatted');

  await bob.click('#api-keys-open');
  await bob.fill('#key-label', 'laptop');
  await bob.click('#keys-form button[type=submit]');
  await bob.waitForSelector('#key-new >> text=hk_');
  const shown = await bob.textContent('#key-new');
  const key = shown.slice(shown.indexOf('hk_')).trim();
  check(/^hk_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/.test(key), 'the new key looks wrong');
  await bob.click('#keys-close');
  await admin.reload();
  await admin.waitForSelector('#api-keys tr >> text=laptop');
  step('api-key', { owner: await admin.textContent('#api-keys tr td:nth-child(2)') });

  await admin.click('#users tr[data-user=bob] button:has-text("Sign out everywhere")');
  await admin.waitForSelector('#flash >> text=sign out: bob');
  const after = await bob.evaluate(async () => (await fetch('/chat/api/conversations')).status);
  check(after === 401, 'after sign out everywhere bob got ' + after);
  step('signed-out');
});
