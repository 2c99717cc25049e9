// Single sign-on in the browser (OidcBrowserTest) against a real OpenID provider on loopback (NAV's mock-oauth2-server
// with its interactive login form): ann clicks "Sign in with Example SSO", logs in at the provider and lands in the web
// chat signed in, seeing only her own conversations; mallory, whose e-mail domain is not allowed, gets a page saying so;
// a callback with a tampered state is refused, and the same callback replayed after it was used is refused.
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

const PROVIDER = process.env.HERALD_OIDC_ISSUER;

async function providerLogin(page, username, claims) {
  await page.waitForSelector('input[name=username]');
  await page.fill('input[name=username]', username);
  await page.fill('textarea[name=claims]', JSON.stringify(claims));
  await page.click('input[type=submit]');
}

await run(async (newPage) => {
  const ann = await newPage();
  await ann.goto(BASE_URL + '/');
  await ann.waitForSelector('#login[open] >> text=Sign in to Herald');
  await screenshot(ann, 'oidc-sign-in.png');
  await ann.click('#oidc-sign-in >> text=Sign in with Example SSO');
  await providerLogin(ann, 'ann-subject-1', { email: 'ann@example.com', preferred_username: 'ann' });
  await ann.waitForURL(BASE_URL + '/');
  await ann.waitForSelector('#signed-in >> text=ann');
  await say(ann, 'hello as ann');
  await ann.waitForSelector('.msg.assistant:not(.draft) >> text=You said: hello as ann');
  await ann.waitForSelector('#conversations li');
  const list = await ann.textContent('#conversations');
  check(!list.includes('secret plan'), 'ann sees bob\'s conversation in her list: ' + list);
  const other = await ann.evaluate(async () => (await fetch('/chat/api/transcript?c=bobs-conv')).status);
  check(other === 404, 'ann opened bob\'s conversation: ' + other);
  await screenshot(ann, 'oidc-signed-in.png');
  step('ann-signed-in', { list });

  const mallory = await newPage();
  await mallory.goto(BASE_URL + '/');
  await mallory.click('#oidc-sign-in');
  await providerLogin(mallory, 'mallory-subject', { email: 'mallory@evil.example', preferred_username: 'mallory' });
  await mallory.waitForSelector('h1 >> text=Sign-in refused');
  await screenshot(mallory, 'oidc-refused.png');
  step('mallory-refused', { reason: await mallory.textContent('#reason') });

  // a second sign-in of ann; the provider's redirect back (the answer to its login form) is held, to be tampered
  // with and replayed
  const again = await newPage();
  let callback = null;
  await again.route((u) => u.href.startsWith(PROVIDER), async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const res = await route.fetch({ maxRedirects: 0 });
    callback = res.headers()['location'];
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'held by the test' });
  });
  await again.goto(BASE_URL + '/auth/oidc/start');
  await providerLogin(again, 'ann-subject-1', { email: 'ann@example.com', preferred_username: 'ann' });
  await again.waitForSelector('text=held by the test');
  check(callback && callback.startsWith(BASE_URL + '/auth/oidc/callback?'), 'the provider sent the browser to ' + callback);
  const flow = (await again.context().cookies()).find((c) => c.name === 'herald_oidc');
  check(flow, 'no sign-in flow cookie was set');
  const url = new URL(callback);
  const state = url.searchParams.get('state');
  url.searchParams.set('state', (state[0] === 'A' ? 'B' : 'A') + state.slice(1));
  await again.goto(url.toString());
  step('tampered-state', { reason: await again.textContent('#reason') });

  await again.context().addCookies([flow]);
  await again.goto(callback);
  await again.waitForURL(BASE_URL + '/');
  await again.waitForSelector('#signed-in >> text=ann');
  step('second-sign-in');

  await again.context().addCookies([flow]);
  await again.goto(callback);
  step('replayed', { reason: await again.textContent('#reason') });

  // signing out signs out at the provider too (sign_out_at_provider): its end_session_endpoint sends the browser back
  const visited = [];
  ann.on('request', (request) => { if (request.isNavigationRequest()) visited.push(request.url()); }); // redirects included
  await ann.click('#sign-out');
  await ann.waitForURL(BASE_URL + '/');
  await ann.waitForSelector('#login[open] >> text=Sign in to Herald');
  const after = await ann.evaluate(async () => (await (await fetch('/auth/state')).json()).loggedIn);
  check(after === false, 'ann is still signed in after signing out');
  check(visited.some((u) => u.startsWith(process.env.HERALD_OIDC_ISSUER)), 'signing out did not pass the provider: ' + visited);
  step('signed-out-at-provider', { visited });
});
