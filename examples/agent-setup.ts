/**
 * What the four agent examples (`agent-*.ts`) share, so that each of them shows only its
 * model API: an MCP host over the bundled example servers (the notebook over stdio and
 * the weather service over Streamable HTTP, started as `demo.ts` starts them), the choice
 * between the real model API and the local stand-in, Ctrl-C, and the printing of tool
 * calls and the answer. Nothing in here depends on the provider.
 */
import { fileURLToPath } from 'node:url';
import { McpServerManager, presentationText, ToolHost, type ToolOutput } from '../src/index.js';
import type { ModelToolCall } from '../src/projections/index.js';
import { startWeatherServer } from './servers/weather-server.js';
import { startModelStandIn, type ModelStandIn, type StandInReply } from './stand-in/model-api.js';

/** The user's message; it needs one tool of each server. */
export const QUESTION = 'What is the weather in Lisbon for the next two days, and what is on my release checklist?';

/** Most rounds of tool calls before the loop stops asking: a model that keeps calling tools is not looping forever. */
export const MAX_ROUNDS = 5;

/** The stand-in's script: both tools in its first answer, text in its second. */
const SCRIPT: StandInReply[] = [
  {
    toolCalls: [
      { name: 'mcp_weather_get_forecast', arguments: { city: 'Lisbon', days: 2 } },
      { name: 'mcp_notes_search_notes', arguments: { query: 'release' } },
    ],
  },
  { text: 'Both tools answered (this is the scripted stand-in; a real model would sum up the forecast and the checklist here).' },
];

export interface ModelChoice {
  /** The provider's name, as printed. */
  provider: string;
  /** The environment variable the provider's SDK reads its key from. */
  keyVariable: 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY' | 'GEMINI_API_KEY';
  /** The model used when `MODEL` is not set. */
  defaultModel: string;
  /** Which of the stand-in's base URLs this SDK takes. */
  standIn: keyof ModelStandIn['baseUrls'];
}

export interface Agent {
  host: ToolHost;
  model: string;
  /** For the SDK client: the real key, or a placeholder the stand-in accepts. */
  apiKey: string;
  /** For the SDK client: the stand-in's URL, or `undefined` for the SDK's own default. */
  baseUrl: string | undefined;
  /** Aborted by Ctrl-C; give it to every model request and to `runToolCalls`. */
  signal: AbortSignal;
  /** Prints one tool call that has run, shortened (an `onOutput` of `runToolCalls`). */
  printCall: (call: ModelToolCall, output: ToolOutput) => void;
  printAnswer: (text: string | null | undefined) => void;
  /** Closes the host (no server process outlives it), the weather server and the stand-in. */
  close(): Promise<void>;
}

const short = (text: string, max = 72): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Starts the servers and the host, picks the model API and wires Ctrl-C. */
export async function startAgent(choice: ModelChoice): Promise<Agent> {
  const weather = await startWeatherServer();
  const configFile = fileURLToPath(new URL('./mcp.json', import.meta.url));
  const manager = await McpServerManager.fromFile(configFile, { env: { ...process.env, WEATHER_URL: weather.url } });
  // Four tools fit in every request, so the model gets them all; the discovery helpers are for catalogs that do not.
  const host = new ToolHost({ providers: [manager], discovery: false });
  let standIn: ModelStandIn | undefined;
  try {
    await host.init();
    const servers = manager.statuses().map((status) => `${status.id} (${status.transport}${status.pid === undefined ? '' : `, pid ${status.pid}`})`);
    console.log(`MCP servers: ${servers.join(', ')}; ${host.definitions().length} tools`);

    const key = process.env[choice.keyVariable];
    const live = process.env.MCP_FLEET_EXAMPLE_LIVE === '1' && key !== undefined && key !== '';
    const model = process.env.MODEL || choice.defaultModel;
    if (live) console.log(`model: ${model} on the ${choice.provider} API (live)`);
    else {
      standIn = await startModelStandIn({ reply: (_request, index) => SCRIPT[Math.min(index, SCRIPT.length - 1)]! });
      console.log(`model: local stand-in (set MCP_FLEET_EXAMPLE_LIVE=1 and ${choice.keyVariable} to use the real API)`);
    }
    console.log(`user: ${QUESTION}`);

    // Ctrl-C aborts the request or the tool calls in flight; the loop ends and `close` runs.
    // Listening for SIGINT also tells mcp-fleet the application handles it, so the servers
    // stay up until `close`. A second Ctrl-C quits at once (servers are still killed on exit).
    const controller = new AbortController();
    const onInterrupt = (): void => {
      if (controller.signal.aborted) process.exit(130);
      console.log('\nCtrl-C: stopping (press again to quit at once)');
      process.exitCode = 130;
      controller.abort();
    };
    process.on('SIGINT', onInterrupt);

    return {
      host,
      model,
      apiKey: live ? key : 'stand-in-key',
      baseUrl: standIn?.baseUrls[choice.standIn],
      signal: controller.signal,
      printCall: (call, output) => {
        const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
        const result = output.modelOutput === undefined ? JSON.stringify(output.output) : presentationText(output.modelOutput);
        console.log(`tool: ${call.name} ${short(args, 48)}\n  ${output.isError ? 'error' : '→'} ${short(result)}`);
      },
      printAnswer: (text) => console.log(`answer: ${text || `(no text: the model gave none, or still wanted tools after ${MAX_ROUNDS} rounds)`}`),
      close: async () => {
        process.off('SIGINT', onInterrupt);
        await host.close();
        await Promise.all([weather.close(), standIn?.close()]);
      },
    };
  } catch (error) {
    await host.close();
    await Promise.all([weather.close(), standIn?.close()]);
    throw error;
  }
}
