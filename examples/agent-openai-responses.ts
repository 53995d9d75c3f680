/**
 * A complete agent loop on the OpenAI Responses API: the host's tools go out as function
 * tools, every `function_call` of an answer runs on the MCP servers, and the answer's
 * items plus one `function_call_output` per call go back, until the model answers in
 * text. Without MCP_FLEET_EXAMPLE_LIVE=1 and OPENAI_API_KEY it talks to a local stand-in.
 *
 *   npx tsx examples/agent-openai-responses.ts
 */
import OpenAI from 'openai';
import { openaiResponses } from '../src/projections/index.js';
import { MAX_ROUNDS, QUESTION, startAgent } from './agent-setup.js';

const agent = await startAgent({ provider: 'OpenAI', keyVariable: 'OPENAI_API_KEY', defaultModel: 'gpt-5-mini', standIn: 'openai' });
const { host, model, signal } = agent;
const client = new OpenAI({ apiKey: agent.apiKey, baseURL: agent.baseUrl });

try {
  const tools = openaiResponses.tools(host.definitions()).tools;
  const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: QUESTION }];
  const ask = () => client.responses.create({ model, input, tools }, { signal });

  let answer = await ask();
  for (let round = 1; round <= MAX_ROUNDS && openaiResponses.toolCalls(answer).length > 0; round++) {
    const results = await openaiResponses.runToolCalls(host, answer, { signal, onOutput: agent.printCall });
    // The model's items go back as they came (reasoning included), then one output per call.
    // Output items are valid input items; the SDK's types just do not say so.
    input.push(...(answer.output as OpenAI.Responses.ResponseInputItem[]), ...results);
    answer = await ask();
  }
  agent.printAnswer(answer.output_text);
} catch (error) {
  if (!signal.aborted) throw error; // Ctrl-C: the SDK or runToolCalls rejected with the abort
} finally {
  await agent.close();
}
