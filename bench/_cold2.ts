import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider, ToolHost } from '../dist/index.js';
import { startHttpFixture } from './call-latency.js';
import { repoPath } from './util.js';
const ARGS = { text: 'hello' };
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sides: Record<string, (url: string) => Promise<number[]>> = {
  fleet: async (url) => {
    const t0 = now();
    const provider = new McpToolProvider({ servers: [{ id: 'legacy', transport: { type: 'http', url }, lifecycle: 'auto', required: true }] });
    const host = new ToolHost({ providers: [provider] });
    const t1 = now(); await host.init(); const t2 = now();
    await host.call(provider.toolName('legacy', 'echo') ?? 'missing', ARGS); const t3 = now();
    await host.close(); const t4 = now();
    return [t1 - t0, t2 - t1, 0, t3 - t2, t4 - t3];
  },
  raw: async (url) => {
    const t0 = now();
    const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const tr = new StreamableHTTPClientTransport(new URL(url));
    const t1 = now(); await client.connect(tr); const t2 = now(); await client.listTools(); const t2b = now();
    await client.callTool({ name: 'echo', arguments: ARGS }); const t3 = now();
    await client.close(); const t4 = now();
    return [t1 - t0, t2 - t1, t2b - t2, t3 - t2b, t4 - t3];
  },
};
const names = ['fleet', 'raw'];
const n = Number(process.argv[2] ?? 100);
const server = await startHttpFixture(repoPath('test/fixtures/legacy-http-server.mjs'), []);
const res: Record<string, number[][]> = { fleet: [], raw: [] };
for (const k of names) for (let i = 0; i < 20; i++) await sides[k]!(server.url);
for (let i = 0; i < n; i++) for (const k of (i % 2 ? [...names].reverse() : names)) res[k]!.push(await sides[k]!(server.url));
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const k of names) console.log(k, ['create', 'connect/init', 'list', 'call', 'close'].map((p, j) => `${p} ${med(res[k]!.map((r) => r[j]!)).toFixed(2)}`).join('  '), ' total', med(res[k]!.map((r) => r.reduce((a, b) => a + b))).toFixed(2));
await server.close();
process.exit(0);
