/**
 * Heap of the tool-search index per tool, in a fresh process (`node --expose-gc --import
 * tsx bench/tool-search-heap-probe.ts`): the corpus's tools are made into definitions and
 * search fields first, then the heap is read after a gc before and after indexing them, so
 * the figure is the index's own (postings, field lengths, names), not the catalog's.
 * Prints `{ bytesPerTool, tools }` as JSON.
 */
import type { ToolDefinition } from '../dist/core/tool.js';
import type { ToolSearchFields } from '../dist/core/search/fields.js';
import { parameterText } from '../dist/core/search/fields.js';
import { ToolSearchIndex } from '../dist/core/search/tool-index.js';
import { loadCorpus } from './tool-search.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const fields = new Map<string, ToolSearchFields>();
const definitions: ToolDefinition[] = [];
for (const server of loadCorpus()) {
  for (const tool of server.tools) {
    const name = `mcp_${server.id}_${tool.name}`.toLowerCase().replace(/[^a-z0-9_-]+/g, '_').slice(0, 64);
    if (fields.has(name)) continue;
    definitions.push({ name, description: tool.description ?? '', parameters: tool.inputSchema });
    fields.set(name, {
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: parameterText(tool.inputSchema),
      server: { id: server.id, ...(server.serverInfo.title ? { title: server.serverInfo.title } : {}), ...(server.serverInfo.description ? { description: server.serverInfo.description } : {}) },
    });
  }
}
const catalog = { definitions: () => definitions, groups: () => [], searchFields: (name: string) => fields.get(name) };

const settle = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const before = settle();
const index = new ToolSearchIndex();
index.sync(catalog);
// A search builds the sorted vocabulary for prefixes: part of what a used index keeps.
index.search('create an issue', 10);
const after = settle();
process.stdout.write(`${JSON.stringify({ bytesPerTool: (after - before) / index.size, tools: index.size })}\n`);
