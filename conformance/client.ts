/**
 * The client program the official MCP conformance suite drives (see README.md beside
 * this file). One program plays every scenario: the suite names it in
 * `MCP_CONFORMANCE_SCENARIO`, picks the wire in `MCP_CONFORMANCE_PROTOCOL_VERSION` and
 * appends the test server's URL as the last argument.
 *
 * Everything goes through mcp-fleet's public API, the way an application would use it:
 * one required Streamable HTTP server in an `McpToolProvider`, registered in a
 * `ToolHost`; tools are called by their model-facing names. The verdict comes from
 * what the test server observed; the exit status only records whether the script
 * completed (0), the library raised or a call failed (1), the invocation was unusable
 * (2), or the scenario is not supported yet (3).
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import {
  McpAuthorizationRequired,
  type McpElicitationHandler,
  type McpLifecycle,
  type McpOAuthConfig,
  type McpLogger,
  McpToolProvider,
  presentationText,
  type ToolDefinition,
  ToolHost,
  type ToolOutput,
} from '../src/index.js';

const SERVER_ID = 'test';

/** Stay under the runner's 30 s client timeout, so a hang ends with our own message. */
const DEADLINE_MS = 25_000;

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_NOT_SUPPORTED = 3;

/** Each wire version of the suite and the lifecycle that speaks it. */
const LIFECYCLES: Record<string, McpLifecycle> = {
  '2025-11-25': 'initialize',
  '2026-07-28': 'discover',
};

/** Scenario families of the suite that mcp-fleet does not support yet, and why. */
const NOT_SUPPORTED: ReadonlyArray<{ pattern: RegExp; feature: string }> = [
  { pattern: /^auth\/(dpop|dpop-nonce|wif-jwt-bearer|enterprise-managed-authorization)$/, feature: 'this OAuth extension (DPoP, workload identity, enterprise-managed)' },
  { pattern: /^sep-2640-/, feature: 'the skills extension (SEP-2640)' },
];

/** Nothing listens there: the suite's authorization servers approve at once, and the client reads the redirect. */
const REDIRECT_URI = 'http://localhost:3000/callback';
/** A client ID metadata document URL (SEP-991): the one the suite's basic-cimd scenario expects; nothing fetches it. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Re-authorizations allowed after the first one, e.g. for a scope step-up. */
const MAX_REAUTHORIZATIONS = 2;

/** `MCP_CONFORMANCE_CONTEXT` of the scenarios with pre-issued credentials. */
const credentialsContext = z.object({
  client_id: z.string(),
  client_secret: z.string().optional(),
  private_key_pem: z.string().optional(),
  signing_algorithm: z.string().optional(),
});

/** The OAuth configuration an application would give mcp-fleet for an `auth/*` scenario. */
function oauthFor(scenario: string, context: unknown): McpOAuthConfig | undefined {
  if (!scenario.startsWith('auth/')) return undefined;
  const credentials = credentialsContext.safeParse(context);
  if (scenario === 'auth/client-credentials-basic' || scenario === 'auth/client-credentials-jwt') {
    if (!credentials.success) throw new ScenarioError(`MCP_CONFORMANCE_CONTEXT has no client credentials: ${credentials.error.message}`);
    const { client_id: clientId, client_secret: clientSecret, private_key_pem: privateKey, signing_algorithm: alg } = credentials.data;
    return privateKey === undefined
      ? { flow: 'client_credentials', clientId, clientSecret: clientSecret ?? '', authMethod: 'client_secret_basic' }
      : { flow: 'client_credentials', clientId, privateKey, signingAlgorithm: alg ?? 'ES256', authMethod: 'private_key_jwt' };
  }
  if (scenario === 'auth/pre-registration') {
    if (!credentials.success) throw new ScenarioError(`MCP_CONFORMANCE_CONTEXT has no client: ${credentials.error.message}`);
    return { flow: 'authorization_code', redirectUri: REDIRECT_URI, clientId: credentials.data.client_id, ...(credentials.data.client_secret ? { clientSecret: credentials.data.client_secret } : {}) };
  }
  return { flow: 'authorization_code', redirectUri: REDIRECT_URI, clientMetadataUrl: CLIENT_METADATA_URL };
}

/**
 * Plays the person with a browser: opens the authorization URL (the suite's servers
 * approve at once and redirect) and pastes the redirect URL back into mcp-fleet.
 */
async function authorize(provider: McpToolProvider, signal: AbortSignal): Promise<void> {
  const url = await provider.beginAuthorization(SERVER_ID);
  log('authorization URL', { url });
  const response = await fetch(url, { redirect: 'manual', signal });
  const location = response.headers.get('location');
  await response.body?.cancel();
  if (location === null) throw new ScenarioError(`the authorization server answered ${response.status} without a redirect`);
  log('redirected to', { location });
  await provider.completeAuthorization(SERVER_ID, new URL(location, url).href, { signal });
}

/** Whether a tool result says the server wants (other) authorization. */
function needsAuthorization(output: ToolOutput): boolean {
  return output.isError && (output.output as { error?: { code?: unknown } } | undefined)?.error?.code === 'authorization_required';
}

/** `MCP_CONFORMANCE_CONTEXT` of `http-custom-headers`: the calls to make, in order. */
const toolCallsContext = z.object({
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) })),
});

class ScenarioError extends Error {
  override name = 'ScenarioError';
}

function log(message: string, fields?: Record<string, unknown>): void {
  const suffix = fields === undefined ? '' : ` ${JSON.stringify(fields)}`;
  process.stderr.write(`[conformance-client] ${message}${suffix}\n`);
}

/** mcp-fleet's own log lines go to stderr too, so a failing run explains itself. */
const stderrLogger: McpLogger = {
  debug: (fields, message) => log(`mcp-fleet debug: ${message}`, fields),
  info: (fields, message) => log(`mcp-fleet info: ${message}`, fields),
  warn: (fields, message) => log(`mcp-fleet warn: ${message}`, fields),
  error: (fields, message) => log(`mcp-fleet error: ${message}`, fields),
};

/** What a scenario script works with: the initialised host and its one provider. */
interface Run {
  host: ToolHost;
  provider: McpToolProvider;
  signal: AbortSignal;
  /** The parsed `MCP_CONFORMANCE_CONTEXT`, or `{}` when the suite sends none. */
  context: unknown;
  /** Whether the server is configured with OAuth. */
  oauth: boolean;
}

type Scenario = (run: Run) => Promise<void>;

/** The model-facing name of a remote tool; a tool the library did not publish fails the script. */
function localName(run: Run, remoteName: string): string {
  const name = run.provider.toolName(SERVER_ID, remoteName);
  if (name === undefined) throw new ScenarioError(`tool "${remoteName}" is not published by mcp-fleet`);
  return name;
}

function definitionOf(run: Run, remoteName: string): ToolDefinition {
  const name = localName(run, remoteName);
  const definition = run.host.definitions().find((candidate) => candidate.name === name);
  if (definition === undefined) throw new ScenarioError(`tool "${name}" has no definition in host.definitions()`);
  return definition;
}

function describeOutput(output: ToolOutput): string {
  return output.modelOutput === undefined ? JSON.stringify(output.output) : presentationText(output.modelOutput);
}

/**
 * Calls a remote tool through the host; an `isError` result fails the script. A result
 * asking for authorization (a scope step-up, a migrated authorization server) runs the
 * interactive flow again, a bounded number of times.
 */
async function callExpectingSuccess(run: Run, remoteName: string, args: Record<string, unknown>): Promise<void> {
  const name = localName(run, remoteName);
  log(`calling ${remoteName} as ${name}`, { arguments: args });
  let output = await run.host.call(name, args, { signal: run.signal });
  for (let attempt = 0; needsAuthorization(output) && run.oauth && attempt < MAX_REAUTHORIZATIONS; attempt++) {
    log('the server asks for authorization again', { attempt: attempt + 1 });
    await authorize(run.provider, run.signal);
    output = await run.host.call(name, args, { signal: run.signal });
  }
  const text = describeOutput(output);
  if (output.isError) throw new ScenarioError(`tool "${remoteName}" returned an error: ${text}`);
  log(`${remoteName} returned`, { text: text.slice(0, 500) });
}

/** The catalog is listed by `host.init()`; these scenarios need nothing more. */
const listOnly: Scenario = () => Promise.resolve();

const SCENARIOS: Record<string, Scenario> = {
  initialize: listOnly,
  'request-metadata': listOnly,
  'json-schema-ref-no-deref': listOnly,

  tools_call: (run) => callExpectingSuccess(run, 'add_numbers', { a: 5, b: 3 }),

  'sse-retry': (run) => callExpectingSuccess(run, 'test_reconnection', {}),

  // Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get (SEP-2243).
  'http-standard-headers': async (run) => {
    await callExpectingSuccess(run, 'test_headers', {});
    await callExpectingSuccess(run, 'my-hyphenated-tool', {});
    const resources = await run.provider.listResources(SERVER_ID, { signal: run.signal });
    log('resources listed', { uris: resources.map((resource) => resource.uri) });
    for (const resource of resources) await run.provider.readResource(SERVER_ID, resource.uri, { signal: run.signal });
    const prompts = await run.provider.listPrompts(SERVER_ID, { signal: run.signal });
    log('prompts listed', { names: prompts.map((prompt) => prompt.name) });
    for (const prompt of prompts) {
      const args = Object.fromEntries((prompt.arguments ?? []).filter((argument) => argument.required).map((argument) => [argument.name, 'conformance']));
      await run.provider.getPrompt(SERVER_ID, prompt.name, args, { signal: run.signal });
    }
  },

  'http-custom-headers': async (run) => {
    const parsed = toolCallsContext.safeParse(run.context);
    if (!parsed.success) throw new ScenarioError(`MCP_CONFORMANCE_CONTEXT has no usable toolCalls: ${parsed.error.message}`);
    for (const call of parsed.data.toolCalls) await callExpectingSuccess(run, call.name, call.arguments);
  },

  // The library must have dropped every tool with an invalid x-mcp-header; only valid_tool remains.
  'http-invalid-tool-headers': async (run) => {
    const published = run.host
      .definitions()
      .flatMap((definition) => run.provider.toolOrigin(definition.name)?.remoteName ?? []);
    log('published remote tools', { published });
    await callExpectingSuccess(run, 'valid_tool', { region: 'us-east-1' });
  },

  // Echo the schema exactly as a model would receive it, so the server sees what survived.
  'json-schema-2020-12-preservation': async (run) => {
    const schema = definitionOf(run, 'json_schema_2020_12_tool').parameters;
    await callExpectingSuccess(run, 'json_schema_echo', { schema });
  },
};

/** Scenarios whose server asks the person for input: the server opts in to elicitation. */
const ELICITATION_SCENARIOS = new Set(['elicitation-sep1034-client-defaults', 'sep-2322-client-request-state']);

/**
 * Plays the person answering an elicitation: accepts and leaves every field empty, so
 * the library fills in the schema's defaults (SEP-1034).
 */
const acceptingPerson: McpElicitationHandler = {
  modes: ['form', 'url'],
  elicit: (request) => {
    log('elicitation', { mode: request.mode, message: request.message });
    return Promise.resolve({ action: 'accept', content: {} });
  },
};

SCENARIOS['elicitation-sep1034-client-defaults'] = (run) => callExpectingSuccess(run, 'test_client_elicitation_defaults', {});

// Multi-round-trip calls (SEP-2322): each input_required round is answered and the call retried.
SCENARIOS['sep-2322-client-request-state'] = async (run) => {
  for (const tool of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
    await callExpectingSuccess(run, tool, {});
  }
};

/** Every supported `auth/*` scenario: authorize (done by `play`), list, call the one tool. */
const authScenario: Scenario = (run) => callExpectingSuccess(run, 'test-tool', {});

interface Invocation {
  scenario: string;
  lifecycle: McpLifecycle;
  url: string;
  context: unknown;
}

/** Reads the suite's argv and environment; returns an error message when they are unusable. */
function readInvocation(): Invocation | string {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (scenario === undefined || scenario === '') return 'MCP_CONFORMANCE_SCENARIO is not set';
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
  const lifecycle = LIFECYCLES[version];
  if (lifecycle === undefined) return `unsupported MCP_CONFORMANCE_PROTOCOL_VERSION "${version}"`;
  const url = process.argv.at(-1);
  if (url === undefined || !/^https?:\/\//.test(url)) return 'the last argument must be the test server URL';
  let context: unknown = {};
  const rawContext = process.env.MCP_CONFORMANCE_CONTEXT;
  if (rawContext !== undefined && rawContext !== '') {
    try {
      context = JSON.parse(rawContext);
    } catch {
      return 'MCP_CONFORMANCE_CONTEXT is not valid JSON';
    }
  }
  return { scenario, lifecycle, url, context };
}

/** The error and its chain of causes, so the library's own reason shows in stderr. */
function describeError(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      lines.push(`${current.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${current.message}`);
      current = current.cause;
    } else {
      lines.push(inspect(current, { depth: 2 }));
      current = undefined;
    }
  }
  return lines.join('\n  caused by ');
}

async function play(invocation: Invocation, script: Scenario): Promise<number> {
  const oauth = oauthFor(invocation.scenario, invocation.context);
  const provider = new McpToolProvider({
    servers: [
      {
        id: SERVER_ID,
        transport: { type: 'http', url: invocation.url, ...(oauth ? { oauth } : {}) },
        lifecycle: invocation.lifecycle,
        // A required server makes init() throw when set-up fails, instead of logging and going on.
        required: true,
        elicitation: ELICITATION_SCENARIOS.has(invocation.scenario),
        resources: invocation.scenario === 'http-standard-headers',
      },
    ],
    logger: stderrLogger,
    elicitation: acceptingPerson,
  });
  const host = new ToolHost({ providers: [provider] });
  const signal = AbortSignal.timeout(DEADLINE_MS);
  let status = 0;
  try {
    try {
      await host.init({ signal });
    } catch (error) {
      // The application's part of the authorization-code flow: send the person to the URL,
      // again when the server wants more (a scope step-up, a new authorization server).
      if (!(error instanceof McpAuthorizationRequired) || oauth?.flow !== 'authorization_code') throw error;
      for (let attempt = 0; ; attempt++) {
        log('authorization required', { message: error.message, attempt });
        try {
          await authorize(provider, signal);
          break;
        } catch (again) {
          if (!(again instanceof McpAuthorizationRequired) || attempt >= MAX_REAUTHORIZATIONS) throw again;
        }
      }
    }
    const tools = provider.definitions().map((definition) => definition.name);
    log('catalog listed', { tools });
    await script({ host, provider, signal, context: invocation.context, oauth: oauth !== undefined });
    log(`scenario ${invocation.scenario} completed`);
  } catch (error) {
    log(`scenario ${invocation.scenario} failed:\n  ${describeError(error)}`);
    status = EXIT_FAILED;
  } finally {
    await host.close().catch((error: unknown) => log(`close failed: ${describeError(error)}`));
  }
  return status;
}

async function main(): Promise<number> {
  const invocation = readInvocation();
  if (typeof invocation === 'string') {
    log(invocation);
    return EXIT_USAGE;
  }
  const { scenario } = invocation;
  const unsupported = NOT_SUPPORTED.find((entry) => entry.pattern.test(scenario));
  if (unsupported !== undefined) {
    log(`scenario ${scenario} is not supported yet: mcp-fleet has no ${unsupported.feature}`);
    return EXIT_NOT_SUPPORTED;
  }
  const script = SCENARIOS[scenario] ?? (scenario.startsWith('auth/') ? authScenario : undefined);
  if (script === undefined) {
    log(`unknown scenario "${scenario}"`);
    return EXIT_USAGE;
  }
  log(`scenario ${scenario}, lifecycle ${invocation.lifecycle}, server ${invocation.url}`);
  return play(invocation, script);
}

// Exit explicitly: a socket the library failed to release must not keep the runner waiting.
main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    log(`unexpected failure: ${describeError(error)}`);
    process.exit(EXIT_FAILED);
  },
);
