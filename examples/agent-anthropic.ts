/**
 * A complete agent loop on the Anthropic Messages API: the host's tools go out as client
 * tools, every `tool_use` block of the answer runs on the MCP servers, and the assistant
 * message plus one user message of `tool_result` blocks go back, until the model answers
 * in text. Without MCP_FLEET_EXAMPLE_LIVE=1 and ANTHROPIC_API_KEY it talks to a local stand-in.
 *
 *   npx tsx examples/agent-anthropic.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { anthropic } from '../src/projections/index.js';
import { MAX_ROUNDS, QUESTION, startAgent } from './agent-setup.js';

const agent = await startAgent({ provider: 'Anthropic', keyVariable: 'ANTHROPIC_API_KEY', defaultModel: 'claude-sonnet-4-5', standIn: 'anthropic' });
const { host, model, signal } = agent;
const client = new Anthropic({ apiKey: agent.apiKey, baseURL: agent.baseUrl });

try {
  const tools = anthropic.tools(host.definitions()).tools;
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
  const ask = () => client.messages.create({ model, max_tokens: 1024, messages, tools }, { signal });

  let answer = await ask();
  for (let round = 1; round <= MAX_ROUNDS && anthropic.toolCalls(answer).length > 0; round++) {
    const results = await anthropic.runToolCalls(host, answer, { signal, onOutput: agent.printCall });
    // The assistant's content as it came (text and tool_use blocks), then every tool_result in one user message.
    messages.push({ role: 'assistant', content: answer.content }, { role: 'user', content: results });
    answer = await ask();
  }
  agent.printAnswer(answer.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
} catch (error) {
  if (!signal.aborted) throw error; // Ctrl-C: the SDK or runToolCalls rejected with the abort
} finally {
  await agent.close();
}
