// Cross-site request forgery against the keyless API (KeylessApiBrowserTest): a page on another origin
// (HERALD_EVIL_URL) tries every request a browser sends without a CORS preflight - fetch in no-cors mode
// with a text/plain or an untyped body, and an HTML form posting text/plain - plus a CORS fetch that needs
// a preflight. None of them may start a turn; the JUnit side checks the agent saw nothing.
import { step, run } from './lib.mjs';

const TARGET = process.env.HERALD_URL + '/v1/chat/completions';
const EVIL = process.env.HERALD_EVIL_URL;
const body = JSON.stringify({ model: 'herald', messages: [{ role: 'user', content: 'forged by another site' }] });

await run(async (newPage) => {
  const page = await newPage();
  await page.goto(EVIL + '/evil.html');
  const results = await page.evaluate(async ({ target, body }) => {
    const out = {};
    const attempt = async (name, f) => {
      try { await f(); out[name] = 'sent'; } catch (e) { out[name] = 'blocked: ' + e.message; }
    };
    await attempt('no-cors text/plain', () => fetch(target, { method: 'POST', mode: 'no-cors', body,
      headers: { 'Content-Type': 'text/plain' } }));
    await attempt('no-cors untyped blob', () => fetch(target, { method: 'POST', mode: 'no-cors', body: new Blob([body]) }));
    await attempt('cors application/json', () => fetch(target, { method: 'POST', body,
      headers: { 'Content-Type': 'application/json' } }));
    await new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.name = 'sink';
      document.body.appendChild(frame);
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = target;
      form.enctype = 'text/plain';
      form.target = 'sink';
      const field = document.createElement('input');
      field.name = body.slice(0, -2) + ',"x":"';
      field.value = '"}';
      form.appendChild(field);
      document.body.appendChild(form);
      frame.onload = () => resolve();
      setTimeout(resolve, 5000);
      form.submit();
      out['form text/plain'] = 'submitted';
    });
    return out;
  }, { target: TARGET, body });
  step('attempted', { results });
});
