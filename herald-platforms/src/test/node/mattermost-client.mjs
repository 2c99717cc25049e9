// Drives a Mattermost server (the tests' FakeMattermost, with Herald connected as its bot) with the official
// @mattermost/client package, as a person in the web app would: log in with Client4, open the WebSocket with
// WebSocketClient, write to the bot in a DM and in a channel thread, and read Herald's replies back with getPosts,
// getPostThread and the websocket's posted events. Prints one JSON line with what it saw; exits non-zero on failure.
// Usage: node --experimental-websocket mattermost-client.mjs URL USERNAME PASSWORD BOT_USERNAME CHANNEL_ID
import pkg from '@mattermost/client';

const { Client4, WebSocketClient } = pkg;
const [url, username, password, botName, channelId] = process.argv.slice(2);
if (!channelId) {
  console.error('usage: node --experimental-websocket mattermost-client.mjs URL USERNAME PASSWORD BOT_USERNAME CHANNEL_ID');
  process.exit(64);
}

// Node 20 has WebSocket (with --experimental-websocket) but no CloseEvent, which the client builds when the server's
// seq numbers skip (close code 4001) or a ping goes unanswered (4000): count those instead.
const clientCloses = [];
globalThis.CloseEvent ??= class CloseEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.code = init.code;
    this.wasClean = init.wasClean;
    clientCloses.push(init.code);
  }
};

async function waitFor(what, check, ms = 15000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found) {
      return found;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const client = new Client4();
  client.setUrl(url);
  const me = await client.login(username, password);
  const bot = await client.getUserByUsername(botName);

  const events = [];
  const replies = [];
  const ws = new WebSocketClient({ newWebSocketFn: (u) => new WebSocket(u) });
  ws.addMessageListener((m) => events.push(m));
  ws.initialize(client.getWebSocketUrl().replace(/^http/, 'ws'), client.getToken());
  await waitFor('hello', () => events.find((e) => e.event === 'hello'));
  const pong = await new Promise((resolve) => ws.ping(resolve));
  replies.push(pong.status);

  const dm = await client.createDirectChannel([me.id, bot.id]);
  const pending = `${me.id}:${Date.now()}`;
  const asked = await client.createPost({ channel_id: dm.id, message: 'hello from the official client', pending_post_id: pending });
  const again = await client.createPost({ channel_id: dm.id, message: 'hello from the official client', pending_post_id: pending });
  const dmReply = await waitFor('the reply in the DM', async () => {
    const list = await client.getPosts(dm.id);
    return list.order.map((id) => list.posts[id]).find((p) => p.user_id === bot.id);
  });
  const dmEvent = await waitFor('the posted event of the reply', () => events.find((e) => e.event === 'posted'
    && JSON.parse(e.data.post).user_id === bot.id && JSON.parse(e.data.post).channel_id === dm.id));

  const root = await client.createPost({ channel_id: channelId, message: 'a thread about the release' });
  await client.createPost({ channel_id: channelId, message: `@${botName} what is step one?`, root_id: root.id });
  const threadReply = await waitFor('the reply in the thread', async () => {
    const thread = await client.getPostThread(root.id);
    return thread.order.map((id) => thread.posts[id]).find((p) => p.user_id === bot.id);
  });
  const typed = await new Promise((resolve) => ws.userTyping(channelId, root.id, resolve));
  replies.push(typed.status);

  ws.close();
  const seqs = events.map((e) => e.seq);
  console.log(JSON.stringify({
    me: me.id,
    dm: dm.id,
    asked: asked.id,
    again: again.id,
    dmReply: { message: dmReply.message, channel_id: dmReply.channel_id, root_id: dmReply.root_id },
    dmEventChannelType: dmEvent.data.channel_type,
    threadReply: { message: threadReply.message, root_id: threadReply.root_id },
    root: root.id,
    seqs,
    replies,
    clientCloses,
  }));
}

main().then(() => process.exit(0), (e) => {
  console.error(`mattermost-client failed: ${e.message}${e.server_error_id ? ` (${e.server_error_id}, ${e.url})` : ''}`);
  process.exit(1);
});
