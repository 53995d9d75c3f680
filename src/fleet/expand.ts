/**
 * Expansion of a fleet server config into the plain `McpServerConfig` the provider
 * runs, when the server starts (never at load, never into a saved file): templates
 * replaced, VS Code inputs asked for, the `envFile` read and merged under `env`, the
 * fleet's own fields dropped, and every value taken from the environment, an env file or
 * an input added to `secrets`, so the provider redacts it wherever it lands.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { parseEnv } from 'node:util';
import { resolveServerConfig, type McpServerConfig } from '../mcp/config/config.js';
import { waitBounded } from '../core/wait.js';
import { McpConfigError } from '../mcp/errors.js';
import type { McpFleetServerConfig } from './server-config.js';
import {
  hasTemplates,
  parseTemplate,
  replaceTemplateFields,
  substituteTemplate,
  templateFields,
  type McpTemplateInput,
  type McpTemplatePart,
  type McpTemplateReference,
} from './templates.js';

/** A VS Code `inputs` entry: a value the editor asks the user for. */
export interface McpConfigInput {
  id: string;
  /** `promptString` or `pickString` in VS Code; passed on as it is. */
  type: string;
  description?: string;
  /** Whether the answer should be typed hidden. Default `false`. */
  password?: boolean;
  default?: string;
  /** The choices of a `pickString`. */
  options?: string[];
}

/** What the application is asked to answer: which server, which field, which input. */
export interface McpInputRequest {
  serverId: string;
  field: string;
  input: McpConfigInput;
  /** Aborts when the start that asked is abandoned (the server stopped, the manager shut down): close the prompt then. */
  signal?: AbortSignal;
}

/** Answers an input; `undefined` leaves it unanswered (the server then does not start). */
export type McpInputHandler = (request: McpInputRequest) => Promise<string | undefined> | string | undefined;

/** What templates are expanded against. */
export interface McpExpansionContext {
  /** The variables `${VAR}` and `${env:VAR}` read (the manager passes `process.env` by default). */
  env: Readonly<Record<string, string | undefined>>;
  /** `${userHome}`. */
  home: string;
  /** `${workspaceFolder}`, and the base of a relative `envFile`; `undefined`: using it is an error. */
  workspaceFolder: string | undefined;
  /** The declared inputs. */
  inputs: readonly McpConfigInput[];
  /** The application's callback; `undefined`: an `${input:...}` without an answer is an error. */
  askInput: McpInputHandler | undefined;
  /** Answers already given, by input id: each input is asked once per map, reused across servers and restarts, never written anywhere. */
  answers: Map<string, string>;
  /** Abandons the expansion (a question in flight, the env file read): it rejects with the signal's reason. Default: none. */
  signal?: AbortSignal;
}

/** A config ready for the provider, and the values it must treat as secrets. */
export interface McpExpandedServer {
  config: McpServerConfig;
  secrets: string[];
}

/** Questions in flight per answers map, so two servers starting at once share one question. */
const pendingQuestions = new WeakMap<Map<string, string>, Map<string, Promise<string | undefined>>>();

function configError(serverId: string, field: string, message: string): McpConfigError {
  return new McpConfigError(`MCP server "${serverId}": \`${field}\` ${message}.`, { serverId, field });
}

function ask(request: McpInputRequest, context: McpExpansionContext): Promise<string | undefined> {
  let pending = pendingQuestions.get(context.answers);
  if (pending === undefined) {
    pending = new Map<string, Promise<string | undefined>>();
    pendingQuestions.set(context.answers, pending);
  }
  const inFlight = pending.get(request.input.id);
  if (inFlight !== undefined) return inFlight;
  const handler = context.askInput!;
  const question = Promise.resolve()
    .then(() => handler(request))
    .then((answer) => {
      if (typeof answer !== 'string') return undefined;
      context.answers.set(request.input.id, answer);
      return answer;
    });
  pending.set(request.input.id, question);
  // Forgotten once settled: an unanswered input is asked again at the next start.
  const forget = (): void => void pending.delete(request.input.id);
  question.then(forget, forget);
  return question;
}

async function answerInput(serverId: string, field: string, reference: McpTemplateInput, context: McpExpansionContext): Promise<string> {
  const input = context.inputs.find((candidate) => candidate.id === reference.id);
  if (input === undefined) {
    throw configError(
      serverId,
      field,
      `uses ${reference.source}, which is not declared in \`inputs\`; declare an input with id ${JSON.stringify(reference.id)} (the "inputs" list of a VS Code mcp.json)`,
    );
  }
  const known = context.answers.get(input.id);
  if (known !== undefined) return known;
  const about = input.description === undefined ? '' : ` (${JSON.stringify(input.description)})`;
  if (context.askInput === undefined) {
    throw configError(serverId, field, `uses ${reference.source}${about}, but nothing can ask for it; give the McpServerManager an \`inputs\` handler`);
  }
  // Only this start stops waiting; a question shared with another start goes on for it.
  const answer = await waitBounded(ask({ serverId, field, input, ...(context.signal === undefined ? {} : { signal: context.signal }) }, context), {
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
  if (answer === undefined) {
    throw configError(serverId, field, `uses ${reference.source}${about}, which was not answered; answer it when asked (the \`inputs\` handler returned no value)`);
  }
  return answer;
}

interface Resolution {
  serverId: string;
  context: McpExpansionContext;
  inputs: Map<string, string>;
  secrets: Set<string>;
}

function resolveReference(reference: McpTemplateReference, field: string, state: Resolution): string {
  const { serverId, context } = state;
  if (reference.kind === 'input') return state.inputs.get(reference.id)!;
  if (reference.kind === 'variable') {
    // Own string values only: `process.env` inherits `constructor` and friends from Object.prototype.
    const own = Object.hasOwn(context.env, reference.name) ? context.env[reference.name] : undefined;
    const value = typeof own === 'string' ? own : undefined;
    if (reference.default !== undefined && (value === undefined || value === '')) return reference.default;
    if (value === undefined) {
      throw configError(
        serverId,
        field,
        `uses \${${reference.name}}, which is not set; set it in the environment or give a default: \${${reference.name}:-value}`,
      );
    }
    if (value !== '') state.secrets.add(value);
    return value;
  }
  if (reference.name === 'userHome') return context.home;
  if (reference.name === 'pathSeparator') return sep;
  if (context.workspaceFolder === undefined) {
    throw configError(serverId, field, `uses ${reference.source}, but no workspace folder is known; load the config from a file, or give \`workspaceFolder\``);
  }
  return reference.name === 'workspaceFolder' ? context.workspaceFolder : basename(context.workspaceFolder);
}

function describeReadFailure(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'it does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return 'it cannot be read';
  }
}

/** Reads the env file; the message shows the path as written when expanding it used a variable or an input. */
async function readEnvFile(
  serverId: string,
  written: string,
  path: string,
  parts: readonly McpTemplatePart[],
  signal: AbortSignal | undefined,
): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  } catch (error) {
    signal?.throwIfAborted();
    const secretPath = parts.some((part) => part.kind === 'variable' || part.kind === 'input');
    const shown = secretPath ? `${JSON.stringify(written)} (as written)` : JSON.stringify(path);
    throw configError(serverId, 'transport.envFile', `names the file ${shown}, which cannot be read (${describeReadFailure(error)}); create it or fix the path`);
  }
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseEnv(text))) if (typeof value === 'string') variables[key] = value;
  return variables;
}

/**
 * Expands `server` for starting it: `transport.command`, `args`, `env` values, `cwd`,
 * `envFile`, `url`, `headers` values, `bearerToken` and the string fields of `oauth`;
 * every other field is copied as it is. The `envFile` (relative to the workspace
 * folder, else the current directory) is read with `util.parseEnv` and merged under
 * `env` (`env` wins). Inputs are asked one at a time in field order, each at most once
 * per `context.answers` (concurrent expansions share a pending question). The result is
 * checked with the provider's `resolveServerConfig`. Throws `McpConfigError` with
 * `serverId` and `field`; no message holds a variable's, an input's or an env file's value.
 */
export async function expandServerConfig(server: McpFleetServerConfig, context: McpExpansionContext): Promise<McpExpandedServer> {
  const serverId = server.id;
  const parsed = new Map<string, McpTemplatePart[]>();
  for (const { field, text } of templateFields(server)) {
    if (hasTemplates(text)) parsed.set(field, parseTemplate(text, { serverId, field }));
  }
  const state: Resolution = { serverId, context, inputs: new Map(), secrets: new Set() };
  for (const [field, parts] of parsed) {
    for (const part of parts) {
      if (part.kind !== 'input' || state.inputs.has(part.id)) continue;
      const answer = await answerInput(serverId, field, part, context);
      state.inputs.set(part.id, answer);
      if (answer !== '') state.secrets.add(answer);
    }
  }
  const expanded = replaceTemplateFields(server, ({ field }) =>
    substituteTemplate(parsed.get(field)!, (reference) => resolveReference(reference, field, state)),
  );
  const transport = expanded.transport;
  if (transport.type === 'stdio' && transport.envFile !== undefined) {
    const path = resolve(context.workspaceFolder ?? process.cwd(), transport.envFile);
    const written = server.transport.type === 'stdio' ? server.transport.envFile! : '';
    const fromFile = await readEnvFile(serverId, written, path, parsed.get('transport.envFile') ?? [], context.signal);
    const env = transport.env ?? {};
    for (const [key, value] of Object.entries(fromFile)) if (!(key in env) && value !== '') state.secrets.add(value);
    transport.env = { ...fromFile, ...env };
    delete transport.envFile;
  }
  delete expanded.disabled;
  delete expanded.autoApprove;
  delete expanded.restartPolicy;
  const secrets = [...new Set([...(server.secrets ?? []), ...state.secrets])];
  const config: McpServerConfig = expanded;
  if (secrets.length > 0 || server.secrets !== undefined) config.secrets = secrets;
  resolveServerConfig(config);
  return { config, secrets };
}
