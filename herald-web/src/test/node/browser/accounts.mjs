// Web accounts in the browser (AccountsBrowserTest): on a fresh install the admin page offers to create the first
// admin; the admin adds a user in the Users panel; the user signs in on the chat (a wrong password is refused) and
// chats and makes an API key; an invited person picks their password through the link and chats (listed with its owner on the admin page),
// then changes it in the account menu; the admin signs the user out everywhere and the user's page asks to sign in again.
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

  // an invitation: the admin invites cleo, cleo opens the link, picks a password (a typo in the repeat is caught) and
  // chats (the admin's users list counts her turn); the link works once
  await admin.fill('#invite-name', 'cleo');
  await admin.click('#user-invite button[type=submit]');
  await admin.waitForSelector('#invite-url');
  const link = (await admin.textContent('#invite-url')).trim();
  check(/\/#invite=cleo\.[A-Za-z0-9_-]{32}$/.test(link), 'the invitation link looks wrong: ' + link);
  await admin.waitForSelector('#users tr[data-user=cleo] >> text=invited');
  const cleo = await newPage();
  await cleo.goto(link);
  await cleo.waitForSelector('#login[open] >> text=Welcome to Herald, cleo');
  await cleo.fill('#login-password', 'cleo-long-password');
  await cleo.fill('#login-repeat', 'cleo-long-passwort');
  await cleo.press('#login-repeat', 'Enter');
  await cleo.waitForSelector('.login-error >> text=The two passwords differ');
  await cleo.fill('#login-repeat', 'cleo-long-password');
  await cleo.press('#login-repeat', 'Enter');
  await cleo.waitForSelector('#signed-in >> text=cleo');
  check(!cleo.url().includes('invite='), 'the code stayed in the address bar: ' + cleo.url());
  await say(cleo, 'hello as cleo');
  await cleo.waitForSelector('.msg.assistant:not(.draft) >> text=You said: hello as cleo');
  const again = await newPage();
  await again.goto(link);
  await again.waitForSelector('#login[open] >> text=Welcome to Herald, cleo');
  await again.fill('#login-password', 'someone-elses-password');
  await again.fill('#login-repeat', 'someone-elses-password');
  await again.press('#login-repeat', 'Enter');
  await again.waitForSelector('.login-error >> text=this invitation link is not valid');
  await admin.reload();
  await admin.waitForSelector('#users tr[data-user=cleo] >> text=active');
  await admin.waitForSelector('#users tr[data-user=cleo] td.usage-today >> text=1 turn');
  const usage = await admin.textContent('#users tr[data-user=cleo] td.usage-window');
  check(usage.startsWith('1 turn · '), 'cleo\'s usage over 30 days reads ' + usage);
  step('invited', { reused: await again.textContent('.login-error'), usage });

  // cleo changes her password in the account menu: a wrong current one is refused, then the change keeps this page
  // signed in
  await cleo.click('#password-open');
  await cleo.fill('#password-current', 'not-cleos-password');
  await cleo.fill('#password-new', 'cleo-newer-password');
  await cleo.fill('#password-again', 'cleo-newer-password');
  await cleo.click('#password-save');
  await cleo.waitForSelector('#password-result >> text=your current password is not that one');
  await cleo.fill('#password-current', 'cleo-long-password');
  await cleo.fill('#password-new', 'cleo-newer-password');
  await cleo.fill('#password-again', 'cleo-newer-password');
  await cleo.click('#password-save');
  await cleo.waitForSelector('#password-result >> text=Password changed');
  await cleo.click('#password-close');
  const stillIn = await cleo.evaluate(async () => (await fetch('/chat/api/conversations')).status);
  check(stillIn === 200, 'after changing her password cleo got ' + stillIn);
  step('password-changed');

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
