// A Matrix user driven by the official matrix-js-sdk, for MatrixJsSdkTest: it holds the fake homeserver to what the
// real client expects while it talks to Herald through it.
// Usage: node matrix-client.mjs BASE_URL USER PASSWORD BOT_USER_ID TEXT
// Logs in with m.login.password, starts the client (its own /sync loop), creates a direct room inviting the bot, waits
// for the bot to join, sends TEXT, waits for the bot's reply in the room and prints one JSON line:
// RESULT {"room": ..., "sent": <event id>, "reply": {"body", "format", "formatted_body", "in_reply_to"}}. Exits 1 on a timeout.
import * as sdk from 'matrix-js-sdk';

const [baseUrl, user, password, bot, text] = process.argv.slice(2);
if (!text) {
  console.error('usage: node matrix-client.mjs BASE_URL USER PASSWORD BOT_USER_ID TEXT');
  process.exit(64);
}
const deadline = setTimeout(() => {
  console.error('matrix-client: timed out');
  process.exit(1);
}, 45_000);

const logger = { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error: (...a) => console.error(...a), getChild() { return logger; } };

function until(client, event, test) {
  return new Promise((resolve) => {
    const on = (...args) => {
      const found = test(...args);
      if (found) {
        client.removeListener(event, on);
        resolve(found);
      }
    };
    client.on(event, on);
  });
}

const login = await sdk.createClient({ baseUrl, logger }).loginRequest({
  type: 'm.login.password', identifier: { type: 'm.id.user', user }, password,
});
const client = sdk.createClient({ baseUrl, accessToken: login.access_token, userId: login.user_id, deviceId: login.device_id, logger });
const prepared = until(client, sdk.ClientEvent.Sync, (state) => state === 'PREPARED');
await client.startClient({ initialSyncLimit: 10, lazyLoadMembers: false });
await prepared;

const { room_id: roomId } = await client.createRoom({ invite: [bot], is_direct: true, preset: 'trusted_private_chat' });
const joined = until(client, sdk.RoomStateEvent.Members, (event, state, member) =>
  member.userId === bot && member.membership === 'join' && event.getRoomId() === roomId);
const alreadyJoined = client.getRoom(roomId)?.getMember(bot)?.membership === 'join';
if (!alreadyJoined) {
  await joined;
}

const replied = until(client, sdk.RoomEvent.Timeline, (event) =>
  event.getRoomId() === roomId && event.getSender() === bot && event.getType() === 'm.room.message' ? event : null);
const { event_id: sent } = await client.sendTextMessage(roomId, text);
const reply = await replied;
const content = reply.getContent();
console.log("RESULT " + JSON.stringify({
  room: roomId,
  sent,
  reply: {
    body: content.body,
    format: content.format,
    formatted_body: content.formatted_body,
    in_reply_to: content['m.relates_to']?.['m.in_reply_to']?.event_id ?? null,
  },
}));
clearTimeout(deadline);
client.stopClient();
process.exit(0);
