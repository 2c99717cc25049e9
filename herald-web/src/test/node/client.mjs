// Drives Herald's API server with the official openai client and prints, one JSON object a line,
// what it received. OpenAiNodeClientTest starts the server, runs this script and checks the lines.
// Env: HERALD_BASE_URL (http://127.0.0.1:port/v1), HERALD_API_KEY.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.HERALD_BASE_URL, apiKey: process.env.HERALD_API_KEY, maxRetries: 0, timeout: 20000 });
const out = (step, data) => console.log(JSON.stringify({ step, ...data }));

const models = await client.models.list();
out('models', { ids: models.data.map((m) => m.id) });

const completion = await client.chat.completions.create({
  model: 'herald',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ],
});
out('completion', {
  object: completion.object,
  content: completion.choices[0].message.content,
  finish: completion.choices[0].finish_reason,
  totalTokens: completion.usage?.total_tokens,
});

const stream = await client.chat.completions.create({
  model: 'herald',
  messages: [{ role: 'user', content: 'Stream please' }],
  stream: true,
  stream_options: { include_usage: true },
});
const deltas = [];
let finish = null;
let usage = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  for (const choice of chunk.choices) {
    if (choice.delta?.content) deltas.push(choice.delta.content);
    if (choice.finish_reason) finish = choice.finish_reason;
  }
}
out('stream', { deltas, finish, totalTokens: usage?.total_tokens });

const session = await client.chat.completions.create(
  { model: 'herald', messages: [{ role: 'user', content: 'Remember me' }] },
  { headers: { 'X-Herald-Session-Id': 'node-session' } },
);
out('session', { content: session.choices[0].message.content });

try {
  const wrong = new OpenAI({ baseURL: process.env.HERALD_BASE_URL, apiKey: 'not-the-key', maxRetries: 0 });
  await wrong.models.list();
  out('wrongKey', { status: 200 });
} catch (e) {
  out('wrongKey', { status: e.status, type: e.error?.type ?? e.type, name: e.constructor.name });
}

try {
  await client.chat.completions.create({ model: 'herald', messages: [{ role: 'system', content: 'no user here' }] });
  out('badRequest', { status: 200 });
} catch (e) {
  out('badRequest', { status: e.status, param: e.param, name: e.constructor.name });
}
