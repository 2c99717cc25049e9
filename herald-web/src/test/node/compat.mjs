// Drives Herald's API server (model profiles on a scripted model server) with the official openai client and with
// the Vercel AI SDK's OpenAI-compatible provider, and prints, one JSON object a line, what each received.
// OpenAiClientsCompatTest starts the server, runs this script and checks the lines.
// Env: HERALD_BASE_URL (http://127.0.0.1:port/v1), HERALD_API_KEY.
import OpenAI from 'openai';
import { generateText, stepCountIs, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';

const baseURL = process.env.HERALD_BASE_URL;
const apiKey = process.env.HERALD_API_KEY;
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20000 });
const out = (step, data) => console.log(JSON.stringify({ step, ...data }));
const refusal = (e) => ({ status: e.status, param: e.param ?? e.error?.param, message: e.message, name: e.constructor.name });
const user = (content) => [{ role: 'user', content }];
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const models = await client.models.list();
out('models', { ids: models.data.map((m) => m.id) });

const eye = await client.chat.completions.create({ model: 'eye', messages: user('who answers?') });
out('select', { content: eye.choices[0].message.content, model: eye.model });

for (const [step, body] of [
  ['unknownModel', { model: 'gpt-4o', messages: user('hi') }],
  ['nTwo', { model: 'herald', messages: user('hi'), n: 2 }],
  ['unknownField', { model: 'herald', messages: user('hi'), prediction: { type: 'content', content: 'x' } }],
]) {
  try {
    await client.chat.completions.create(body);
    out(step, { status: 200 });
  } catch (e) {
    out(step, refusal(e));
  }
}

const json = await client.chat.completions.create({
  model: 'herald',
  messages: user('json please'),
  response_format: { type: 'json_object' },
});
out('json', { content: json.choices[0].message.content });

// The tool round trip, as an application runs it: the model asks, the client runs its tool, sends the result.
const messages = user('weather in Oslo?');
const first = await client.chat.completions.create({ model: 'herald', messages, tools: [weather] });
const call = first.choices[0].message.tool_calls[0];
messages.push(first.choices[0].message);
messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny' });
const second = await client.chat.completions.create({ model: 'herald', messages, tools: [weather] });
out('tools', {
  finish: first.choices[0].finish_reason,
  name: call.function.name,
  args: JSON.parse(call.function.arguments),
  answer: second.choices[0].message.content,
  finish2: second.choices[0].finish_reason,
});

const streamed = await client.chat.completions.create({ model: 'herald', messages: user('weather in Oslo?'), tools: [weather], stream: true });
const calls = [];
let streamFinish = null;
for await (const chunk of streamed) {
  for (const choice of chunk.choices) {
    for (const d of choice.delta?.tool_calls ?? []) {
      calls[d.index] = calls[d.index] ?? { name: '', arguments: '' };
      if (d.function?.name) calls[d.index].name += d.function.name;
      if (d.function?.arguments) calls[d.index].arguments += d.function.arguments;
    }
    if (choice.finish_reason) streamFinish = choice.finish_reason;
  }
}
out('toolsStream', { finish: streamFinish, calls });

const response = await client.responses.create({ model: 'herald', instructions: 'Be brief.', input: 'Say hello' });
out('responses', { text: response.output_text, status: response.status, object: response.object, total: response.usage?.total_tokens });

const events = await client.responses.create({ model: 'herald', input: 'Stream please', stream: true });
const types = [];
const deltas = [];
let completed = null;
for await (const event of events) {
  types.push(event.type);
  if (event.type === 'response.output_text.delta') deltas.push(event.delta);
  if (event.type === 'response.completed') completed = event.response;
}
out('responsesStream', { types, deltas, status: completed?.status, text: completed?.output?.[0]?.content?.[0]?.text });

try {
  await client.responses.create({ model: 'herald', input: 'again', previous_response_id: response.id });
  out('responsesRefusal', { status: 200 });
} catch (e) {
  out('responsesRefusal', refusal(e));
}

const provider = createOpenAICompatible({ name: 'herald', baseURL, apiKey });
const result = await generateText({
  model: provider('herald'),
  prompt: 'weather in Oslo?',
  tools: {
    get_weather: tool({
      description: 'The weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => (city === 'Oslo' ? 'sunny' : 'unknown'),
    }),
  },
  stopWhen: stepCountIs(4),
  maxRetries: 0,
});
out('aiSdk', {
  text: result.text,
  steps: result.steps.length,
  toolCalls: result.steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, input: c.input }))),
  toolResults: result.steps.flatMap((s) => s.toolResults.map((r) => r.output)),
});

// the AI SDK's default OpenAI provider talks to /v1/responses, which takes no client tools: the refusal says what to
// use instead, and what it names (.chat(), i.e. /v1/chat/completions) runs the same tool loop
const openai = createOpenAI({ baseURL, apiKey });
const weatherTool = {
  get_weather: tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => (city === 'Oslo' ? 'sunny' : 'unknown'),
  }),
};
try {
  await generateText({ model: openai('herald'), prompt: 'weather in Oslo?', tools: weatherTool, maxRetries: 0 });
  out('aiSdkResponsesTools', { status: 200 });
} catch (e) {
  out('aiSdkResponsesTools', { status: e.statusCode, message: e.message, body: e.responseBody });
}
const viaChat = await generateText({
  model: openai.chat('herald'), prompt: 'weather in Oslo?', tools: weatherTool, stopWhen: stepCountIs(4), maxRetries: 0,
});
out('aiSdkChat', { text: viaChat.text, steps: viaChat.steps.length });
