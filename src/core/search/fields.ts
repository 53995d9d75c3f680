/**
 * What a tool is searched by, field by field: its own name, title and description, its
 * parameters, and the server (or group) it belongs to, so that "on GitHub" or "in Notion"
 * steers to that server's tools. A provider that knows more than a function definition
 * says (the MCP provider knows the tool's remote name and its server's self-description)
 * gives these fields itself; for any other tool they are read from its definition and group.
 */
import type { ToolGroup } from '../group.js';
import type { JsonSchema, ToolDefinition } from '../tool.js';

/** The searchable text of one tool. */
export interface ToolSearchFields {
  /** The tool's own name, as its author wrote it (`create_issue`, `createIssue`). */
  name: string;
  title?: string;
  /** The tool's own description, without text the host adds around it. */
  description?: string;
  /** Its parameters' names and descriptions, as text. */
  parameters?: string;
  /** Where it comes from: a server's id, title and description, or its group's. */
  server?: { id: string; title?: string; description?: string };
}

/** Most parameters read from one schema: a tool with hundreds says nothing more by the hundredth. */
const MOST_PARAMETERS = 64;

/** The names, titles and descriptions of a schema's top-level properties, as text. */
export function parameterText(schema: JsonSchema | undefined): string {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return '';
  const parts: string[] = [];
  for (const [name, property] of Object.entries(properties as Record<string, unknown>).slice(0, MOST_PARAMETERS)) {
    parts.push(name);
    if (typeof property !== 'object' || property === null) continue;
    const { title, description } = property as { title?: unknown; description?: unknown };
    if (typeof title === 'string') parts.push(title);
    if (typeof description === 'string') parts.push(description);
  }
  return parts.join('\n');
}

/** The fields of a tool nobody describes further: its definition, and the first group it is a member of. */
export function definitionFields(definition: ToolDefinition, group: ToolGroup | undefined): ToolSearchFields {
  return {
    name: definition.name,
    description: definition.description,
    parameters: parameterText(definition.parameters),
    ...(group === undefined ? {} : { server: { id: group.id, title: group.title, description: group.description } }),
  };
}
