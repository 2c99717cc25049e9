// Drives the fake Home Assistant with the official home-assistant-js-websocket client (the frontend's own), so the
// fake is held to what the real client expects: usage: node --experimental-websocket homeassistant-client.mjs <url> <token>
import {
  createConnection, createLongLivedTokenAuth, getStates, callService, ERR_INVALID_AUTH,
} from "home-assistant-js-websocket";

const [url, token] = process.argv.slice(2);
const seen = {};
const step = (name) => console.log(`step: ${name}`);
setTimeout(() => { console.log(`stuck after: ${JSON.stringify(seen)}`); process.exit(4); }, 20000).unref();
const conn = await createConnection({ auth: createLongLivedTokenAuth(url, token) });
seen.haVersion = conn.haVersion;
step("connected");
const before = await getStates(conn);
seen.entities = before.map((s) => s.entity_id);
seen.kitchenBefore = before.find((s) => s.entity_id === "light.kitchen").state;
step("states read");
const changed = new Promise((resolve) => {
  conn.subscribeEvents((event) => resolve(event), "state_changed");
});
await new Promise((r) => setTimeout(r, 50));
step("subscribed");
const called = await callService(conn, "light", "turn_on", { brightness_pct: 40 }, { entity_id: "light.kitchen" });
seen.callContext = typeof called?.context?.id;
step("service called");
const event = await changed;
seen.event = { entity: event.data.entity_id, from: event.data.old_state.state, to: event.data.new_state.state };
step("event seen");
await conn.ping();
seen.pinged = true;
step("pinged");
try {
  await callService(conn, "light", "explode", {}, { entity_id: "light.kitchen" });
  seen.unknownService = "accepted";
} catch (err) {
  seen.unknownService = err.code;
}
step("unknown service answered");
conn.close();
try {
  await createConnection({ auth: createLongLivedTokenAuth(url, "not-the-token"), setupRetry: 0 });
  seen.badToken = "connected";
} catch (err) {
  seen.badToken = err === ERR_INVALID_AUTH ? "ERR_INVALID_AUTH" : String(err);
}
step("bad token answered");
console.log(JSON.stringify(seen));
process.exit(0);
