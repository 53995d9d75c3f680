/**
 * The demo `npm start` runs: two bundled example MCP servers (a notebook over stdio on
 * the 2026-07-28 revision, a weather service over Streamable HTTP on the 2025 handshake)
 * become one tool catalog. It prints the capability groups, searches the catalog, calls
 * a tool from each server, shows what a model would receive, and shuts everything down.
 * No network, no API key.
 */
import { fileURLToPath } from 'node:url';
import { McpToolProvider, presentationText, ToolHost, type ToolOutput } from '../src/index.js';
import { startWeatherServer } from './servers/weather-server.js';

const notesServer = fileURLToPath(new URL('./servers/notes-server.ts', import.meta.url));

function show(title: string, value: unknown): void {
  console.log(`\n== ${title}`);
  console.log(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

function modelView(result: ToolOutput): string {
  return result.modelOutput === undefined ? JSON.stringify(result.output) : presentationText(result.modelOutput);
}

const started = Date.now();
const weather = await startWeatherServer();
const provider = new McpToolProvider({
  servers: [
    {
      id: 'notes',
      // Run the TypeScript example with tsx as a loader: command plus args, never a shell string.
      transport: { type: 'stdio', command: process.execPath, args: ['--import', 'tsx', notesServer] },
    },
    { id: 'weather', transport: { type: 'http', url: weather.url }, lifecycle: 'initialize' },
  ],
});
const host = new ToolHost({ providers: [provider] });

try {
  await host.init();
  show(
    'Servers',
    provider.serverStatuses().map(({ id, state, protocolVersion, toolCount }) => `${id}: ${state}, protocol ${protocolVersion}, ${toolCount} tools`).join('\n'),
  );
  show('What the model sees first: tools_groups', (await host.call('tools_groups', { query: '*' })).output);

  const search = await host.call('tools_search', { query: 'forecast', limit: 3 });
  const found = (search.output as { tools: { name: string; description: string }[] }).tools;
  show('tools_search "forecast"', found.map((tool) => `${tool.name}: ${tool.description}`).join('\n'));

  const forecast = await host.call('mcp_weather_get_forecast', { city: 'Lisbon', days: 2 });
  show('mcp_weather_get_forecast -> model view', modelView(forecast));
  show('... and the audited envelope keeps the origin', {
    server_id: (forecast.output as { server_id: string }).server_id,
    tool: (forecast.output as { tool: string }).tool,
    isError: forecast.isError,
  });

  const notes = await host.call('mcp_notes_search_notes', { query: 'release' });
  show('mcp_notes_search_notes -> model view', modelView(notes));

  const typo = await host.call('mcp_notes_serch_notes', { query: 'x' });
  show('A mistyped tool name comes back as an error the model can read', modelView(typo));
} finally {
  await host.close();
  await weather.close();
}
console.log(`\nDone in ${Date.now() - started} ms; every server is closed.`);
