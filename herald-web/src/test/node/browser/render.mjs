// The web chat at 1280x800 (WebChatRenderBrowserTest): an empty conversation says what to do; an answer
// streams as rendered Markdown and ends as sanitized HTML (heading, emphasis, code, link, list, quote, code
// block with a copy button, table); nothing in an answer can run script; an answer is copied and
// regenerated; a stopped answer keeps its partial text before the "Stopped" notice; a conversation is
// renamed, found by its title, and deleted. The strict Content-Security-Policy is never violated.
import { BASE_URL, step, run, check, say, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  page.on('dialog', (d) => d.accept());
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => { window.__csp = (window.__csp || []).concat(e.violatedDirective + ' ' + e.blockedURI + ' in ' + e.sourceFile); }));
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');
  await page.waitForSelector('#empty >> text=Start a conversation');
  step('empty-state', { suggestions: await page.locator('.suggestion').allTextContents() });

  // 1. rendered while streaming, then the stored answer
  await page.click('.suggestion:has-text("show formatting")');
  await page.waitForSelector('#empty', { state: 'hidden' });
  await page.waitForSelector('.msg.assistant.draft .text h1 >> text=Release notes');
  step('draft-rendered');
  const answer = page.locator('.msg.assistant:not(.draft)', { hasText: 'Plain' }).last();
  await answer.waitFor();
  const dom = await answer.evaluate((m) => {
    const t = m.querySelector('.text');
    const links = [...t.querySelectorAll('a')];
    const guide = links.find((a) => a.textContent === 'the guide');
    return {
      h1: t.querySelector('h1')?.textContent,
      strong: t.querySelector('strong')?.textContent,
      em: t.querySelector('em')?.textContent,
      del: t.querySelector('del')?.textContent,
      inlineCode: t.querySelector('p code')?.textContent,
      link: guide ? { href: guide.getAttribute('href'), target: guide.target, rel: guide.rel } : null,
      listItems: t.querySelectorAll('ol > li').length,
      quote: t.querySelector('blockquote')?.textContent.trim(),
      codeBlock: t.querySelector('.code-block pre code.language-java')?.textContent.trim(),
      codeFont: getComputedStyle(t.querySelector('.code-block pre')).fontFamily,
      copyButton: !!t.querySelector('.code-block .copy-code'),
      table: [...t.querySelectorAll('table tr')].map((r) => [...r.children].map((c) => c.textContent.trim())),
      alignRight: t.querySelector('tbody td:nth-child(2)')?.getAttribute('align'),
      images: t.querySelectorAll('img').length,
      handlers: t.querySelectorAll('[onerror], [onclick], script').length,
      trapHref: links.find((a) => a.textContent === 'a trap')?.getAttribute('href') ?? null,
      rawMarkup: t.textContent.includes('**') || t.textContent.includes('```'),
      rawHtmlShownAsText: t.textContent.includes('<img src="x" onerror="window.__xss = 1">'),
    };
  });
  check(dom.h1 === 'Release notes' && dom.strong === '2.0' && dom.em === 'out' && dom.del === 'no', 'inline markup: ' + JSON.stringify(dom));
  check(dom.inlineCode === 'fewer' && dom.listItems === 2 && dom.quote === 'Quoted advice', 'blocks: ' + JSON.stringify(dom));
  check(dom.link && dom.link.target === '_blank' && dom.link.rel.includes('noopener'), 'link: ' + JSON.stringify(dom.link));
  check(dom.codeBlock === 'if (a < b) { System.out.println("hi"); }' && dom.copyButton && /mono|Menlo|Consolas/i.test(dom.codeFont),
    'code block: ' + JSON.stringify(dom));
  check(JSON.stringify(dom.table) === JSON.stringify([['Platform', 'Limit'], ['Telegram', '4096'], ['Discord', '2000']]), 'table: ' + JSON.stringify(dom.table));
  check(dom.images === 0 && dom.handlers === 0 && !dom.trapHref, 'unsafe markup survived: ' + JSON.stringify(dom));
  check(!dom.rawMarkup, 'raw Markdown is shown');
  check(dom.rawHtmlShownAsText, 'raw HTML in the answer is not shown as text');
  check(await page.evaluate(() => window.__xss) === undefined, 'script ran from an answer');
  const csp = await page.evaluate(() => window.__csp || []);
  check(csp.length === 0, 'the page broke its Content-Security-Policy: ' + csp.join(', '));
  step('rendered', dom);
  await screenshot(page, 'webchat-desktop.png');

  // 2. copy a code block and a whole answer
  await answer.locator('.copy-code').click();
  await answer.locator('.copy-code:has-text("Copied")').waitFor();
  const copiedCode = await page.evaluate(() => navigator.clipboard.readText());
  check(copiedCode.trim() === 'if (a < b) { System.out.println("hi"); }', 'copied code: ' + copiedCode);
  await answer.locator('.copy-answer').click();
  const copiedAnswer = await page.evaluate(() => navigator.clipboard.readText());
  check(copiedAnswer.startsWith('# Release notes\n\nHerald **2.0**'), 'copied answer: ' + copiedAnswer.slice(0, 60));
  step('copied', { code: copiedCode.trim(), answerStart: copiedAnswer.slice(0, 15) });

  // 3. regenerate: the question is asked again as a new turn
  check(await page.locator('.msg.assistant.last-answer .regenerate:visible').count() === 1, 'no Regenerate on the newest answer');
  await page.click('.msg.assistant.last-answer .regenerate');
  await page.waitForFunction(() => document.querySelectorAll('.msg.assistant:not(.draft) h1').length === 2, null, { timeout: 30000 });
  const regenerated = await page.locator('.msg.user', { hasText: 'show formatting' }).count();
  check(regenerated === 2, 'the question was sent ' + regenerated + ' times');
  step('regenerated');

  // 4. stop mid-answer: the partial answer stays, before the notice
  await say(page, 'Start the long task');
  await page.waitForSelector('.msg.assistant.draft >> text=Step one is done');
  await page.click('#cmd-stop');
  await page.waitForSelector('.msg.command >> text=Stopped');
  const partial = page.locator('.msg.assistant', { hasText: 'Step one is done' });
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Step one is done');
  const order = await page.evaluate(() => {
    const p = [...document.querySelectorAll('.msg.assistant')].find((m) => m.textContent.includes('Step one is done'));
    const n = [...document.querySelectorAll('.msg.command')].find((m) => m.textContent.includes('Stopped'));
    return { before: !!(p.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING), drafts: document.querySelectorAll('.msg.draft').length };
  });
  check(order.before, 'the partial answer is not before the Stopped notice');
  check(await partial.count() === 1, 'the partial answer is shown ' + (await partial.count()) + ' times');
  check(!(await partial.textContent()).includes('All done'), 'the answer was not cut off');
  step('stopped', order);

  // 5. rename, then a second conversation, search by title, delete it
  await page.click('#rename');
  await page.fill('#rename-input', 'Release planning');
  await page.press('#rename-input', 'Enter');
  await page.waitForSelector('#title >> text=Release planning');
  await page.waitForSelector('#conversations .conv-title >> text=Release planning');
  const first = await page.evaluate(() => JSON.parse(localStorage.getItem('herald.chat.v1')).current);
  step('renamed', { conversation: first });

  await page.click('#new-conversation');
  await page.waitForSelector('#empty >> text=Start a conversation');
  await say(page, 'hello there');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=You said: hello there');
  const second = await page.evaluate(() => JSON.parse(localStorage.getItem('herald.chat.v1')).current);
  check(await page.locator('#conversations li').count() === 2, 'two conversations listed');
  await page.fill('#conversation-search', 'release');
  await page.waitForFunction(() => document.querySelectorAll('#conversations li').length === 1);
  check((await page.textContent('#conversations')).includes('Release planning'), 'search did not find the renamed conversation');
  await page.fill('#conversation-search', 'nothing like this');
  await page.waitForSelector('#no-match:not([hidden])');
  await page.fill('#conversation-search', '');
  step('searched');

  await page.click('#delete');
  await page.waitForFunction(() => document.querySelectorAll('#conversations li').length === 1);
  await page.waitForSelector('#title >> text=Release planning');
  await page.reload();
  await page.waitForSelector('#connection.connected');
  await page.waitForTimeout(500);
  check(!(await page.textContent('#conversations')).includes('hello there'), 'the deleted conversation came back');
  step('deleted', { conversation: second });
});
