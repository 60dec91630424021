// Drives a running `llm-workbench serve` with the official OpenAI client for Node,
// unmodified: lists the models, streams a chat, completes a prompt. Prints one JSON
// object; exits 3 when the package is missing, 1 on any client error.
// Usage: node openai_client.cjs BASE_URL API_KEY   (LWB_OPENAI_NODE_MODULES=<dir>)
'use strict';
const path = require('path');

const modules = process.env.LWB_OPENAI_NODE_MODULES || '';
let OpenAI;
try {
  const mod = require(path.join(modules, 'openai'));
  OpenAI = mod.OpenAI || mod.default || mod;
} catch (e) {
  console.error(`the openai npm package is missing from '${modules}' (run tools/install-deps.sh): ${e.message}`);
  process.exit(3);
}

async function main() {
  const [baseURL, apiKey] = process.argv.slice(2);
  const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey, maxRetries: 0, timeout: 120000 });
  const models = [];
  for await (const m of client.models.list()) models.push(m.id);
  const model = models[0];
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Who is Emma?' }], max_tokens: 16, temperature: 0,
    stream: true, stream_options: { include_usage: true },
  });
  let chatText = '', role = null, finishReason = null, usage = null, chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) role = choice.delta.role;
      if (choice.delta.content) chatText += choice.delta.content;
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  const completion = await client.completions.create({ model, prompt: 'Mr. Darcy said', max_tokens: 8, temperature: 0 });
  console.log(JSON.stringify({
    models, chatText, role, finishReason, usage, chunks,
    completionText: completion.choices[0].text, completionUsage: completion.usage,
  }));
}

main().catch((e) => {
  console.error(`openai client error: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
