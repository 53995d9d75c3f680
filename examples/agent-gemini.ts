/**
 * A complete agent loop on the Gemini API: the host's tools go out as function
 * declarations, every `functionCall` part of the answer runs on the MCP servers, and the
 * model's content plus one user content of `functionResponse` parts go back, until the
 * model answers in text. The projections are bound to the model name (`forModel`), which
 * decides the schema dialect and whether results may carry media. Without MCP_FLEET_EXAMPLE_LIVE=1
 * and GEMINI_API_KEY it talks to a local stand-in.
 *
 *   npx tsx examples/agent-gemini.ts
 */
import { type Content, GoogleGenAI } from '@google/genai';
import { gemini } from '../src/projections/index.js';
import { MAX_ROUNDS, QUESTION, startAgent } from './agent-setup.js';

const agent = await startAgent({ provider: 'Gemini', keyVariable: 'GEMINI_API_KEY', defaultModel: 'gemini-3-flash-preview', standIn: 'gemini' });
const { host, model, signal } = agent;
const client = new GoogleGenAI({ apiKey: agent.apiKey, httpOptions: { baseUrl: agent.baseUrl } });

const projection = gemini.forModel(model);

try {
  const tools = projection.tools(host.definitions()).tools;
  const contents: Content[] = [{ role: 'user', parts: [{ text: QUESTION }] }];
  const ask = () => client.models.generateContent({ model, contents, config: { tools, abortSignal: signal } });

  let answer = await ask();
  for (let round = 1; round <= MAX_ROUNDS && projection.toolCalls(answer).length > 0; round++) {
    const results = await projection.runToolCalls(host, answer, { signal, onOutput: agent.printCall });
    // The model's content as it came (Gemini 3 needs its thought signatures back), then every functionResponse in one user content.
    contents.push(answer.candidates![0]!.content!, { role: 'user', parts: results });
    answer = await ask();
  }
  agent.printAnswer(answer.text);
} catch (error) {
  if (!signal.aborted) throw error; // Ctrl-C: the SDK or runToolCalls rejected with the abort
} finally {
  await agent.close();
}
