/**
 * Example MCP server: an in-memory notebook over stdio, written with the official SDK
 * v2 (`@modelcontextprotocol/server`). It serves both protocol eras; mcp-fleet's `auto`
 * lifecycle reaches it on the stateless 2026-07-28 revision.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const notes: { title: string; body: string }[] = [
  { title: 'Groceries', body: 'Oat milk, lemons, rye bread.' },
  { title: 'Release checklist', body: 'Run the tests, tag the version, publish the notes.' },
];

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'notes', version: '1.0.0', title: 'Notebook', description: 'A small in-memory notebook.' },
    { instructions: 'Search notes before adding one, so titles stay unique.' },
  );
  server.registerTool(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Finds notes whose title or body contains the query.',
      inputSchema: { query: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ query }) => {
      const q = query.toLowerCase();
      const found = notes.filter((note) => `${note.title} ${note.body}`.toLowerCase().includes(q));
      return {
        content: [{ type: 'text', text: found.map((note) => `${note.title}: ${note.body}`).join('\n') || 'No note matches.' }],
        structuredContent: { count: found.length },
      };
    },
  );
  server.registerTool(
    'add_note',
    { title: 'Add a note', description: 'Stores a note.', inputSchema: { title: z.string(), body: z.string() } },
    ({ title, body }) => {
      notes.push({ title, body });
      return { content: [{ type: 'text', text: `Saved "${title}" (${notes.length} notes).` }] };
    },
  );
  return server;
}

serveStdio(() => buildServer());
