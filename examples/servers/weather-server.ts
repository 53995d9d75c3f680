/**
 * Example MCP server: deterministic weather forecasts over Streamable HTTP, written with
 * the official SDK v2. `startWeatherServer()` listens on 127.0.0.1 with an ephemeral
 * port. No network is used: forecasts are computed from the city name.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const CONDITIONS = ['sunny', 'cloudy', 'light rain', 'windy', 'snow showers'];

/** A stable pseudo-forecast: the same city always gets the same weather. */
function forecastFor(city: string, days: number): { day: number; condition: string; highC: number }[] {
  let seed = 0;
  for (const char of city.toLowerCase()) seed = (seed * 31 + char.charCodeAt(0)) % 9973;
  return Array.from({ length: days }, (_, day) => ({
    day: day + 1,
    condition: CONDITIONS[(seed + day) % CONDITIONS.length]!,
    highC: 5 + ((seed + day * 7) % 25),
  }));
}

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'weather', version: '1.0.0', title: 'Weather', description: 'Forecasts for any city (simulated).' },
    { instructions: 'Forecasts are simulated and deterministic; do not use them to plan real trips.' },
  );
  server.registerTool(
    'get_forecast',
    {
      title: 'Get a forecast',
      description: 'Daily forecast for a city.',
      inputSchema: { city: z.string(), days: z.number().int().min(1).max(7).default(3) },
      outputSchema: { city: z.string(), days: z.array(z.object({ day: z.number(), condition: z.string(), highC: z.number() })) },
      annotations: { readOnlyHint: true },
    },
    ({ city, days }) => {
      const structuredContent = { city, days: forecastFor(city, days) };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  server.registerTool(
    'convert_temperature',
    {
      title: 'Convert a temperature',
      description: 'Converts Celsius to Fahrenheit.',
      inputSchema: { celsius: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ celsius }) => ({ content: [{ type: 'text', text: `${celsius} °C = ${((celsius * 9) / 5 + 32).toFixed(1)} °F` }] }),
  );
  return server;
}

/** Starts the server on 127.0.0.1; resolves with its MCP endpoint and a close function. */
export async function startWeatherServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => buildServer());
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
