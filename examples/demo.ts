/**
 * The demo `npm start` runs: a fleet read from `examples/mcp.json` (a notebook over stdio
 * on the 2026-07-28 revision, with a restart policy; a weather service over Streamable
 * HTTP on the 2025 handshake, whose URL the file takes from `${WEATHER_URL}`). It shows
 * the statuses, the capability groups, a search, a call to each server and what a model
 * receives; then it kills the notebook's process and shows the fleet bring it back under
 * its restart policy, and shuts everything down. No network, no API key.
 */
import { fileURLToPath } from 'node:url';
import { type McpFleetServerStatus, McpServerManager, presentationText, ToolHost, type ToolOutput } from '../src/index.js';
import { startWeatherServer } from './servers/weather-server.js';

const configFile = fileURLToPath(new URL('./mcp.json', import.meta.url));

function show(title: string, value: unknown): void {
  console.log(`\n== ${title}`);
  console.log(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

function modelView(result: ToolOutput): string {
  return result.modelOutput === undefined ? JSON.stringify(result.output) : presentationText(result.modelOutput);
}

function describe({ id, state, transport, protocolVersion, toolCount, pid, restartAttempts, restartDelayMs }: McpFleetServerStatus): string {
  const details = [transport, protocolVersion && `protocol ${protocolVersion}`, `${toolCount} tools`, pid && `pid ${pid}`];
  if (restartDelayMs !== undefined) details.push(`restart ${restartAttempts} in ${restartDelayMs} ms`);
  return `${id}: ${state} (${details.filter(Boolean).join(', ')})`;
}

const started = Date.now();
const weather = await startWeatherServer();
const manager = await McpServerManager.fromFile(configFile, { env: { ...process.env, WEATHER_URL: weather.url } });
const host = new ToolHost({ providers: [manager] });

try {
  await host.init(); // starts every server at once, then supervises them
  show(`Servers of ${configFile.split(/[\\/]/).slice(-2).join('/')}`, manager.statuses().map(describe).join('\n'));
  show('What the model sees first: tools_groups', (await host.call('tools_groups', { query: '*' })).output);

  const search = await host.call('tools_search', { query: 'forecast', limit: 3 });
  const found = (search.output as { tools: { name: string; description: string }[] }).tools;
  show('tools_search "forecast"', found.map((tool) => `${tool.name}: ${tool.description}`).join('\n'));

  const forecast = await host.call('mcp_weather_get_forecast', { city: 'Lisbon', days: 2 });
  show('mcp_weather_get_forecast -> model view', modelView(forecast));
  show('mcp_notes_search_notes -> model view', modelView(await host.call('mcp_notes_search_notes', { query: 'release' })));

  const typo = await host.call('mcp_notes_serch_notes', { query: 'x' });
  show('A mistyped tool name comes back as an error the model can read', modelView(typo));

  // Supervision: kill the notebook's process and watch the fleet restart it.
  console.log('\n== Killing the notes server (SIGKILL); its restart policy brings it back');
  const back = new Promise<void>((resolve) => {
    const onStatus = (status: McpFleetServerStatus): void => {
      if (status.id !== 'notes') return;
      console.log(`  ${String(Date.now() - killedAt).padStart(5)} ms  ${describe(status)}`);
      if (status.state === 'running') {
        manager.off('status', onStatus);
        resolve();
      }
    };
    manager.on('status', onStatus);
  });
  const killedAt = Date.now();
  process.kill(manager.status('notes').pid!, 'SIGKILL');
  await back;
  show('mcp_notes_search_notes after the restart', modelView(await host.call('mcp_notes_search_notes', { query: 'groceries' })));
} finally {
  await host.close(); // shuts the fleet down: no child process survives
  await weather.close();
}
console.log(`\nDone in ${Date.now() - started} ms; every server is closed.`);
