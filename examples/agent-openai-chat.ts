/**
 * A complete agent loop on OpenAI Chat Completions: the host's tools go out as function
 * tools, every tool call of the assistant message runs on the MCP servers, and the
 * assistant message plus one `tool` message per call go back, until the model answers in
 * text. Without MCP_FLEET_EXAMPLE_LIVE=1 and OPENAI_API_KEY it talks to a local stand-in.
 *
 *   npx tsx examples/agent-openai-chat.ts
 */
import OpenAI from 'openai';
import { openaiChat } from '../src/projections/index.js';
import { MAX_ROUNDS, QUESTION, startAgent } from './agent-setup.js';

const agent = await startAgent({ provider: 'OpenAI', keyVariable: 'OPENAI_API_KEY', defaultModel: 'gpt-5-mini', standIn: 'openai' });
const { host, model, signal } = agent;
const client = new OpenAI({ apiKey: agent.apiKey, baseURL: agent.baseUrl });

try {
  const tools = openaiChat.tools(host.definitions()).tools;
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
  const ask = () => client.chat.completions.create({ model, messages, tools }, { signal });

  let answer = await ask();
  for (let round = 1; round <= MAX_ROUNDS && openaiChat.toolCalls(answer).length > 0; round++) {
    const results = await openaiChat.runToolCalls(host, answer, { signal, onOutput: agent.printCall });
    // The assistant message (with its tool_calls), then one `tool` message per call.
    messages.push(answer.choices[0]!.message, ...results);
    answer = await ask();
  }
  agent.printAnswer(answer.choices[0]?.message.content);
} catch (error) {
  if (!signal.aborted) throw error; // Ctrl-C: the SDK or runToolCalls rejected with the abort
} finally {
  await agent.close();
}
