/**
 * `McpServerConfig`: what an application tells mcp-fleet about one MCP server, its
 * validation (zod, with errors naming the server and the field) and its redaction
 * (secrets never appear in `JSON.stringify`, `util.inspect` or error messages).
 */
import { inspect } from 'node:util';
import { z } from 'zod';
import { MAX_JSON_DEPTH } from '../../core/budget.js';
import { functionNameProblem } from '../../core/tool.js';
import { McpConfigError } from '../errors.js';
import { sanitizeNamePart } from '../catalog/naming.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUTS,
  MAX_TIMEOUT_MS,
  type McpConcurrency,
  type McpLifecycle,
  type McpLimits,
  type McpStartup,
  type McpTimeouts,
} from './policy.js';

/** A local server started as a child process, speaking MCP over stdin/stdout. */
export interface McpStdioTransportConfig {
  type: 'stdio';
  /** The program to run. Never a shell string: arguments go in `args`. */
  command: string;
  /** Arguments, passed as they are (no shell). Default `[]`. */
  args?: string[];
  /** Variables set in the child's environment, on top of the platform allowlist. Values are secret. Default `{}`. */
  env?: Record<string, string>;
  /** Working directory of the child. Default: the host's working directory. */
  cwd?: string;
  /** Give the child the host's whole environment instead of the allowlist. Default `false`. */
  inheritEnv?: boolean;
  /** Forward the child's stderr lines to the logger at debug level. Default `false` (kept for diagnostics only). */
  logStderr?: boolean;
}

/**
 * OAuth 2.1 authorization code with PKCE: a person approves access in a browser. The
 * library opens no browser: `beginAuthorization` returns the URL, `completeAuthorization`
 * takes the redirect URL (or the code) back.
 */
export interface McpAuthorizationCodeConfig {
  flow: 'authorization_code';
  /** Where the authorization server sends the browser back, e.g. `http://127.0.0.1:8765/callback`. */
  redirectUri: string;
  /** Scopes to request. Default: the server's challenge, else its advertised `scopes_supported`. */
  scopes?: string[];
  /** A pre-registered client id. Default: register dynamically (RFC 7591), or use `clientMetadataUrl`. */
  clientId?: string;
  /** The pre-registered client's secret. Secret. */
  clientSecret?: string;
  /** An https URL where this client's metadata document is served (SEP-991), used as the client id when supported. */
  clientMetadataUrl?: string;
  /** Name shown at registration. Default `mcp-fleet`. */
  clientName?: string;
  /** `native` (default) or `web`, sent at dynamic registration (SEP-837). */
  applicationType?: 'native' | 'web';
}

/**
 * OAuth 2.1 client credentials (SEP-1046): headless, no person involved. The token is
 * obtained at connection time and renewed shortly before it expires.
 */
export interface McpClientCredentialsConfig {
  flow: 'client_credentials';
  clientId: string;
  /** The client secret, for `client_secret_basic` or `client_secret_post`. Secret. */
  clientSecret?: string;
  /** A private key (PKCS#8 PEM or a JWK as JSON) for `private_key_jwt` (RFC 7523). Secret. */
  privateKey?: string;
  /** The JWS algorithm of `privateKey`. Default `ES256`. */
  signingAlgorithm?: string;
  /** Client authentication at the token endpoint. Default: `private_key_jwt` with a key, else `client_secret_basic`. */
  authMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /** Scopes to request. Default: the server's advertised `scopes_supported`. */
  scopes?: string[];
}

export type McpOAuthConfig = McpAuthorizationCodeConfig | McpClientCredentialsConfig;

/** A remote server reached over Streamable HTTP. */
export interface McpHttpTransportConfig {
  type: 'http';
  /** The MCP endpoint. `https`, or `http` to a loopback address unless `allowInsecureHttp`. */
  url: string;
  /** Extra request headers. Values are secret. Protocol and routing headers are rejected. Default `{}`. */
  headers?: Record<string, string>;
  /** A static bearer token sent as `Authorization: Bearer <token>`. Secret. Not with `oauth`. */
  bearerToken?: string;
  /** OAuth 2.1 for this server. Not with `bearerToken`. */
  oauth?: McpOAuthConfig;
  /** Allow plain `http` to a non-loopback host. Default `false`. */
  allowInsecureHttp?: boolean;
}

/**
 * A legacy remote server on the HTTP+SSE transport of revision 2024-11-05: an SSE stream
 * for the server's messages, POSTs for the client's. Same fields and bounds as `http`;
 * the session always uses the `initialize` handshake.
 */
export interface McpSseTransportConfig extends Omit<McpHttpTransportConfig, 'type'> {
  type: 'sse';
}

export type McpTransportConfig = McpStdioTransportConfig | McpHttpTransportConfig | McpSseTransportConfig;

/** The tasks extension settings of a server (SEP-2663 on 2026-07-28, tasks on 2025-11-25). */
export interface McpTasksConfig {
  /** Longest wait for a task to finish, in milliseconds, within [1,000, 86,400,000]. Default 300,000. */
  maxWaitMs?: number;
}

/** One MCP server. Only `id` and `transport` are required. */
export interface McpServerConfig {
  /** Unique id; normalised into model-facing names (`mcp_<id>_<tool>`) and the group id `mcp:<id>`. */
  id: string;
  transport: McpTransportConfig;
  /** Which protocol lifecycle opens a session. Default `auto`. */
  lifecycle?: McpLifecycle;
  /** Make `init()` fail when this server cannot be set up. Default `false`. */
  required?: boolean;
  /** `eager` (init waits) or `background`. Default `eager`. Cannot be `background` when `required`. */
  startup?: McpStartup;
  /** Remote tool names to expose; empty means all. Default `[]`. */
  include?: string[];
  /** Remote tool names to hide; wins over `include`. Default `[]`. */
  exclude?: string[];
  /** Budgets; missing fields keep their defaults. */
  limits?: Partial<McpLimits>;
  /** Deadlines; missing fields keep their defaults. */
  timeouts?: Partial<McpTimeouts>;
  /** How calls to this server may overlap. Default `serial`. */
  concurrency?: McpConcurrency;
  /** Advertise elicitation to this server (also needs an application handler). Default `false`. */
  elicitation?: boolean;
  /** Allow the resource APIs for this server. Default `false`. */
  resources?: boolean;
  /** Declare the tasks extension; `false` or absent disables it. Default disabled. */
  tasks?: McpTasksConfig | false;
  /**
   * More values to treat as secrets: redacted wherever they appear (errors, statuses,
   * logs, stderr), like `env` and header values already are. For a token passed in
   * `args` or a URL path. Default `[]`.
   */
  secrets?: string[];
}

/** A validated configuration with every default filled in. */
export interface ResolvedStdioTransport {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  inheritEnv: boolean;
  logStderr: boolean;
}

export interface ResolvedHttpTransport {
  type: 'http';
  url: string;
  headers: Record<string, string>;
  bearerToken: string | undefined;
  oauth: McpOAuthConfig | undefined;
  allowInsecureHttp: boolean;
}

export interface ResolvedSseTransport extends Omit<ResolvedHttpTransport, 'type'> {
  type: 'sse';
}

/** The transports reached over HTTP. */
export type ResolvedRemoteTransport = ResolvedHttpTransport | ResolvedSseTransport;

export interface ResolvedServerConfig {
  id: string;
  /** The id as it appears in model-facing names. */
  namePart: string;
  transport: ResolvedStdioTransport | ResolvedRemoteTransport;
  lifecycle: McpLifecycle;
  required: boolean;
  startup: McpStartup;
  include: string[];
  exclude: string[];
  limits: McpLimits;
  timeouts: McpTimeouts;
  concurrency: McpConcurrency;
  elicitation: boolean;
  resources: boolean;
  tasks: { maxWaitMs: number } | undefined;
  /** Extra secret values (`secrets`). */
  secrets: string[];
}

export const REDACTED = '[REDACTED]';

const positiveInt = z.number().int().positive();
const timeoutMs = z.number().int().min(1).max(MAX_TIMEOUT_MS);

const limitsSchema = z
  .strictObject({
    catalogPages: positiveInt,
    catalogItems: positiveInt,
    cursorBytes: positiveInt,
    schemaBytes: positiveInt,
    outputSchemaBytes: positiveInt,
    schemaDepth: z.number().int().min(1).max(MAX_JSON_DEPTH),
    descriptionBytes: positiveInt,
    serverMetadataBytes: positiveInt,
    messageBytes: positiveInt,
    outputTextBytes: z.number().int().min(256),
    outputMediaBytes: positiveInt,
    outputMediaItems: positiveInt,
    stderrBytes: positiveInt,
  })
  .partial();

const timeoutsSchema = z
  .strictObject({
    setupMs: timeoutMs,
    listMs: timeoutMs,
    requestMs: timeoutMs,
    callMs: timeoutMs,
    elicitationMs: timeoutMs,
    connectAttemptMs: timeoutMs,
    probeMs: timeoutMs,
    closeMs: timeoutMs,
  })
  .partial();

const nonBlank = z.string().refine((value) => value.trim() !== '', { message: 'must not be empty' });
const stringMap = z.record(z.string(), z.string());

const stdioSchema = z.strictObject({
  type: z.literal('stdio'),
  command: nonBlank,
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: nonBlank.optional(),
  inheritEnv: z.boolean().optional(),
  logStderr: z.boolean().optional(),
});

const scopes = z.array(nonBlank).optional();

const oauthSchema = z.discriminatedUnion('flow', [
  z.strictObject({
    flow: z.literal('authorization_code'),
    redirectUri: nonBlank,
    scopes,
    clientId: nonBlank.optional(),
    clientSecret: nonBlank.optional(),
    clientMetadataUrl: nonBlank.optional(),
    clientName: nonBlank.optional(),
    applicationType: z.enum(['native', 'web']).optional(),
  }),
  z.strictObject({
    flow: z.literal('client_credentials'),
    clientId: nonBlank,
    clientSecret: nonBlank.optional(),
    privateKey: nonBlank.optional(),
    signingAlgorithm: nonBlank.optional(),
    authMethod: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt']).optional(),
    scopes,
  }),
]);

const remoteFields = {
  url: nonBlank,
  headers: stringMap.optional(),
  bearerToken: z.string().optional(),
  oauth: oauthSchema.optional(),
  allowInsecureHttp: z.boolean().optional(),
};

const httpSchema = z.strictObject({ type: z.literal('http'), ...remoteFields });
const sseSchema = z.strictObject({ type: z.literal('sse'), ...remoteFields });

const serverSchema = z.strictObject({
  id: nonBlank,
  transport: z.discriminatedUnion('type', [stdioSchema, httpSchema, sseSchema]),
  lifecycle: z.enum(['auto', 'discover', 'initialize']).optional(),
  required: z.boolean().optional(),
  startup: z.enum(['eager', 'background']).optional(),
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  limits: limitsSchema.optional(),
  timeouts: timeoutsSchema.optional(),
  concurrency: z.enum(['serial', 'read_only_parallel', 'parallel']).optional(),
  elicitation: z.boolean().optional(),
  resources: z.boolean().optional(),
  tasks: z.union([z.literal(false), z.strictObject({ maxWaitMs: z.number().int().min(1000).max(MAX_TIMEOUT_MS).optional() })]).optional(),
  secrets: z.array(z.string()).optional(),
});

/** Headers the transport owns; a configuration may not set them. */
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join('.');
}

function idOf(input: unknown): string | undefined {
  const id = (input as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' && id.trim() !== '' ? id : undefined;
}

function fail(serverId: string | undefined, field: string, problem: string, fix?: string): never {
  const who = serverId === undefined ? 'MCP server config' : `MCP server "${serverId}"`;
  throw new McpConfigError(`${who}: \`${field}\` ${problem}${fix === undefined ? '' : `; ${fix}`}.`, { serverId, field });
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function validateHttp(serverId: string, transport: ResolvedRemoteTransport, hasAuth: boolean): void {
  let url: URL;
  try {
    url = new URL(transport.url);
  } catch {
    fail(serverId, 'transport.url', 'is not a valid URL', 'use an absolute URL such as https://example.com/mcp');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    fail(serverId, 'transport.url', `uses the unsupported scheme "${url.protocol}"`, 'use https (or http to a loopback address)');
  }
  if (url.username !== '' || url.password !== '') {
    fail(serverId, 'transport.url', 'must not contain credentials', 'put a token in `bearerToken` or configure OAuth');
  }
  if (url.hash !== '') fail(serverId, 'transport.url', 'must not contain a fragment', 'remove the part after #');
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !transport.allowInsecureHttp) {
    fail(
      serverId,
      'transport.url',
      'uses plain http to a non-loopback host',
      'use https, or set `allowInsecureHttp: true` if the network is trusted',
    );
  }
  for (const [name, value] of Object.entries(transport.headers)) {
    const field = `transport.headers.${name}`;
    if (!HEADER_NAME.test(name)) fail(serverId, field, 'is not a valid HTTP header name');
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith('mcp-param-')) {
      fail(serverId, field, 'is a protocol or routing header the transport manages', 'remove it');
    }
    if (lower === 'authorization' && hasAuth) {
      fail(serverId, field, 'conflicts with `bearerToken` or `oauth`', 'let one of them authorize requests');
    }
    if (/[\r\n\0]/.test(value)) fail(serverId, field, 'has a value with a line break or NUL character');
  }
  if (transport.bearerToken !== undefined && /[\r\n\0]/.test(transport.bearerToken)) {
    fail(serverId, 'transport.bearerToken', 'has a line break or NUL character');
  }
  if (transport.oauth !== undefined) {
    if (transport.bearerToken !== undefined) {
      fail(serverId, 'transport.oauth', 'cannot be set together with `bearerToken`', 'use one of them');
    }
    validateOAuth(serverId, transport.oauth);
  }
}

function validateOAuth(serverId: string, oauth: McpOAuthConfig): void {
  if (oauth.flow === 'authorization_code') {
    let redirect: URL;
    try {
      redirect = new URL(oauth.redirectUri);
    } catch {
      fail(serverId, 'transport.oauth.redirectUri', 'is not a valid URL', 'use e.g. http://127.0.0.1:8765/callback');
    }
    if (redirect.protocol === 'http:' && !isLoopback(redirect.hostname)) {
      fail(serverId, 'transport.oauth.redirectUri', 'uses plain http to a non-loopback host', 'use https or a loopback address');
    }
    if (oauth.clientSecret !== undefined && oauth.clientId === undefined) {
      fail(serverId, 'transport.oauth.clientSecret', 'needs `clientId`', 'set the pre-registered client id too');
    }
    if (oauth.clientMetadataUrl !== undefined && !/^https:\/\/[^/]+\/.+/.test(oauth.clientMetadataUrl)) {
      fail(serverId, 'transport.oauth.clientMetadataUrl', 'must be an https URL with a path');
    }
    return;
  }
  const method = oauth.authMethod ?? (oauth.privateKey !== undefined ? 'private_key_jwt' : 'client_secret_basic');
  if (method === 'private_key_jwt' && oauth.privateKey === undefined) {
    fail(serverId, 'transport.oauth.privateKey', 'is required for private_key_jwt', 'set the PEM or JWK private key');
  }
  if (oauth.privateKey?.trim().startsWith('{') && !isJson(oauth.privateKey)) {
    // The parser's own message would quote a piece of the key, so it is not repeated.
    fail(serverId, 'transport.oauth.privateKey', 'starts with "{" but is not valid JSON', 'give a JWK in JSON, or a PEM key');
  }
  if (method !== 'private_key_jwt' && oauth.clientSecret === undefined) {
    fail(serverId, 'transport.oauth.clientSecret', `is required for ${method}`, 'set the client secret');
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates one server configuration and fills in its defaults. Throws
 * `McpConfigError` naming the server id and the field on any problem.
 */
export function resolveServerConfig(input: unknown): ResolvedServerConfig {
  const parsed = serverSchema.safeParse(input);
  const serverId = idOf(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown key (a typo) is the offending field itself, not the object that holds it.
    if (issue.code === 'unrecognized_keys') {
      fail(serverId, fieldPath([...issue.path, issue.keys[0]!]), 'is not a known field', 'check its spelling');
    }
    const field = fieldPath(issue.path) || '(root)';
    // Zod messages describe types and keys, never the rejected values, so they are safe to show.
    fail(serverId, field, issue.message.charAt(0).toLowerCase() + issue.message.slice(1));
  }
  const config = parsed.data;
  const id = config.id.trim();
  const namePart = sanitizeNamePart(id);
  const problem = functionNameProblem(`mcp_${namePart}`);
  if (problem !== undefined) fail(id, 'id', `does not make a valid tool name prefix (${problem})`);
  const required = config.required ?? false;
  const startup = config.startup ?? 'eager';
  if (required && startup === 'background') {
    fail(id, 'startup', 'cannot be "background" for a required server', 'make it optional or start it eagerly');
  }
  let transport: ResolvedStdioTransport | ResolvedRemoteTransport;
  if (config.transport.type === 'stdio') {
    transport = {
      type: 'stdio',
      command: config.transport.command,
      args: config.transport.args ?? [],
      env: { ...config.transport.env },
      cwd: config.transport.cwd,
      inheritEnv: config.transport.inheritEnv ?? false,
      logStderr: config.transport.logStderr ?? false,
    };
  } else {
    const token = config.transport.bearerToken?.trim();
    const remote: ResolvedRemoteTransport = {
      type: config.transport.type,
      url: config.transport.url.trim(),
      headers: { ...config.transport.headers },
      bearerToken: token === undefined || token === '' ? undefined : token,
      oauth: config.transport.oauth,
      allowInsecureHttp: config.transport.allowInsecureHttp ?? false,
    };
    validateHttp(id, remote, remote.bearerToken !== undefined || remote.oauth !== undefined);
    transport = remote;
    if (remote.type === 'sse' && config.lifecycle === 'discover') {
      fail(id, 'lifecycle', 'cannot be "discover" for an SSE server, which speaks the 2024-11-05 revision', 'use "initialize" or "auto"');
    }
  }
  const resolved: ResolvedServerConfig = {
    id,
    namePart,
    transport,
    lifecycle: config.lifecycle ?? 'auto',
    required,
    startup,
    include: config.include ?? [],
    exclude: config.exclude ?? [],
    limits: { ...DEFAULT_LIMITS, ...config.limits },
    timeouts: { ...DEFAULT_TIMEOUTS, ...config.timeouts },
    concurrency: config.concurrency ?? 'serial',
    elicitation: config.elicitation ?? false,
    resources: config.resources ?? false,
    tasks: config.tasks === undefined || config.tasks === false ? undefined : { maxWaitMs: config.tasks.maxWaitMs ?? 300_000 },
    secrets: [...(config.secrets ?? [])],
  };
  return withRedaction(resolved);
}

/** A copy of a resolved configuration with every secret value replaced by `[REDACTED]`. */
export function redactedConfig(config: ResolvedServerConfig): Record<string, unknown> {
  const transport = config.transport;
  const scrub = scrubber(config.secrets);
  const safeTransport =
    transport.type === 'stdio'
      ? {
          ...transport,
          command: scrub(transport.command),
          args: transport.args.map(scrub),
          env: Object.fromEntries(Object.keys(transport.env).map((key) => [key, REDACTED])),
          cwd: transport.cwd === undefined ? undefined : scrub(transport.cwd),
        }
      : {
          ...transport,
          url: scrub(redactQuery(transport.url)),
          headers: Object.fromEntries(Object.keys(transport.headers).map((key) => [key, REDACTED])),
          bearerToken: transport.bearerToken === undefined ? undefined : REDACTED,
          oauth: transport.oauth === undefined ? undefined : redactOAuth(transport.oauth),
        };
  return { ...config, transport: safeTransport, secrets: config.secrets.map(() => REDACTED) };
}

/** Replaces every listed secret (of 4 characters or more, as in redaction.ts) where it appears in a string. */
function scrubber(secrets: readonly string[]): (text: string) => string {
  const values = secrets.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  return (text) => values.reduce((result, secret) => result.split(secret).join(REDACTED), text);
}

function redactOAuth(oauth: McpOAuthConfig): McpOAuthConfig {
  const copy = { ...oauth };
  if (copy.clientSecret !== undefined) copy.clientSecret = REDACTED;
  if (copy.flow === 'client_credentials' && copy.privateKey !== undefined) copy.privateKey = REDACTED;
  return copy;
}

/** The URL with every query value replaced by `[REDACTED]` (some services take an API key there). */
function redactQuery(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.search === '') return url;
    for (const key of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(key, REDACTED);
    return parsed.href;
  } catch {
    return url;
  }
}

/** The configuration a transport belongs to, for its redacted views. */
const OWNER = Symbol('mcp-fleet.config');

// Shared by every configuration (closures made per configuration cost heap for as long as
// each server is registered): `this` is the configuration or its transport.
function configJson(this: ResolvedServerConfig): unknown {
  return redactedConfig(this);
}
function configInspect(this: ResolvedServerConfig, _depth: number, options: object): string {
  return inspect(redactedConfig(this), options);
}
function transportJson(this: { [OWNER]: ResolvedServerConfig }): unknown {
  return redactedConfig(this[OWNER]).transport;
}
function transportInspect(this: { [OWNER]: ResolvedServerConfig }, _depth: number, options: object): string {
  return inspect(redactedConfig(this[OWNER]).transport, options);
}

/**
 * Makes `JSON.stringify` and `util.inspect` of a resolved configuration (and of its
 * transport) show the redacted copy, so it can be logged safely.
 */
function withRedaction(config: ResolvedServerConfig): ResolvedServerConfig {
  const hidden = (value: unknown): PropertyDescriptor => ({ value, enumerable: false });
  Object.defineProperties(config.transport, { [OWNER]: hidden(config), toJSON: hidden(transportJson), [inspect.custom]: hidden(transportInspect) });
  Object.defineProperties(config, { toJSON: hidden(configJson), [inspect.custom]: hidden(configInspect) });
  return config;
}
