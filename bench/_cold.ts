import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider, ToolHost } from '../dist/index.js';
import { aiSdkClient } from './ai-sdk-side.js';
import { startHttpFixture } from './call-latency.js';
import { repoPath } from './util.js';
const ARGS = { text: 'hello' };
const sides: Record<string, (url: string) => Promise<void>> = {
  fleet: async (url) => {
    const provider = new McpToolProvider({ servers: [{ id: 'legacy', transport: { type: 'http', url }, lifecycle: 'auto', required: true }] });
    const host = new ToolHost({ providers: [provider] });
    try { await host.init(); await host.call(provider.toolName('legacy', 'echo') ?? 'missing', ARGS); } finally { await host.close(); }
  },
  raw: async (url) => {
    const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try { await client.connect(new StreamableHTTPClientTransport(new URL(url))); await client.listTools(); await client.callTool({ name: 'echo', arguments: ARGS }); } finally { await client.close(); }
  },
  ai: async (url) => {
    const client = await aiSdkClient('auto', { url });
    try { await client.listTools(); await client.callTool({ name: 'echo', arguments: ARGS }); } finally { await client.close(); }
  },
};
const names = (process.argv[2] ?? 'fleet,raw,ai').split(',');
const n = Number(process.argv[3] ?? 100), warm = Number(process.argv[4] ?? 30);
const server = await startHttpFixture(repoPath('test/fixtures/legacy-http-server.mjs'), []);
const res: Record<string, { wall: number[]; cpu: number[] }> = {};
for (const k of names) { res[k] = { wall: [], cpu: [] }; for (let i = 0; i < warm; i++) await sides[k]!(server.url); }
for (let i = 0; i < n; i++) for (const k of (i % 2 ? [...names].reverse() : names)) {
  const c = process.cpuUsage(); const s = process.hrtime.bigint();
  await sides[k]!(server.url);
  res[k]!.wall.push(Number(process.hrtime.bigint() - s) / 1e6); const d = process.cpuUsage(c); res[k]!.cpu.push((d.user + d.system) / 1000);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const k of names) console.log(k, 'wall', med(res[k]!.wall).toFixed(2), 'cpu', med(res[k]!.cpu).toFixed(2), 'cpu mean', (res[k]!.cpu.reduce((a, b) => a + b) / n).toFixed(2));
await server.close();
process.exit(0);
