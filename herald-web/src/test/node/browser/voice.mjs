// A voice note from the web chat on a phone (WebChatVoiceTest): Chromium's fake microphone plays a WAV of real speech;
// the user holds the microphone button, lets go, and the recording is sent; the answer comes as text and as a spoken
// voice note the page plays; under the user's voice note, the page shows what Herald heard.
import { BASE_URL, step, run, check, screenshot } from './lib.mjs';

await run(async (newPage) => {
  const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await page.goto(BASE_URL + '/');
  await page.waitForSelector('#connection.connected');

  const box = await page.locator('#composer-mic').boundingBox();
  check(box && box.width >= 44 && box.height >= 44, 'the microphone button is smaller than a 44 px touch target: ' + JSON.stringify(box));
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.waitForSelector('#composer-mic.recording');
  await page.waitForTimeout(3000);
  await page.mouse.up();
  step('recorded');

  await page.waitForSelector('.msg.user >> text=voice note');
  await page.waitForSelector('.msg.assistant:not(.draft) >> text=Sure, I will water them.', { timeout: 60000 });
  // under the voice note: what Herald heard
  await page.waitForSelector('.msg.user .heard', { timeout: 60000 });
  step('heard', { text: await page.$eval('.msg.user .heard', (n) => n.textContent) });
  await page.waitForSelector('.msg.assistant .sent-file audio.sent-audio', { timeout: 60000 });
  const played = await page.$eval('.msg.assistant .sent-file audio.sent-audio', async (audio) => {
    if (audio.readyState < 1) await new Promise((r) => audio.addEventListener('loadedmetadata', r, { once: true }));
    audio.muted = true;
    await audio.play();
    await new Promise((r) => setTimeout(r, 800));
    const out = { duration: audio.duration, currentTime: audio.currentTime, error: audio.error ? audio.error.code : null };
    audio.pause();
    return out;
  });
  step('played', played);
  await screenshot(page, 'chat-voice-phone.png');
});
