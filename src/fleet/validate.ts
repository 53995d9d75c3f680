/**
 * Validation of a fleet server config as the application or a file gives it: the fleet's
 * own fields here, template syntax, then the provider's `resolveServerConfig` on a copy
 * whose templates are replaced by neutral stand-ins, so every other rule (limits,
 * timeouts, headers, OAuth, lifecycle) fails at load with the provider's own message
 * instead of when the server first starts.
 */
import { z } from 'zod';
import { resolveServerConfig } from '../mcp/config/config.js';
import { McpConfigError } from '../mcp/errors.js';
import { MAX_TIMEOUT_MS } from '../mcp/config/policy.js';
import { DEFAULT_RESTART_POLICY } from './restart-policy.js';
import type { McpFleetServerConfig } from './server-config.js';
import { validateFleetServerId } from './server-id.js';
import { hasTemplates, parseTemplate, replaceTemplateFields, substituteTemplate, templateFields, type McpTemplateField } from './templates.js';

/** Upper bound of restart attempts: beyond it a policy is a mistake, not a choice. */
const MAX_RESTART_ATTEMPTS = 1_000_000;
const MAX_BACKOFF_MULTIPLIER = 1_000;

const delayMs = z.number().int().min(1).max(MAX_TIMEOUT_MS);

const restartPolicySchema = z.strictObject({
  initialDelayMs: delayMs.optional(),
  maxDelayMs: delayMs.optional(),
  backoffMultiplier: z.number().min(1).max(MAX_BACKOFF_MULTIPLIER).optional(),
  maxRestartAttempts: z.number().int().min(0).max(MAX_RESTART_ATTEMPTS).optional(),
});

const fleetFieldsSchema = z.object({
  disabled: z.boolean().optional(),
  autoApprove: z.array(z.string()).optional(),
  restartPolicy: restartPolicySchema.optional(),
});

/** What a templated URL stands in as while the rest of the config is checked; the real URL is checked after expansion. */
const URL_STAND_INS: Record<string, string> = {
  'transport.url': 'https://template.invalid/mcp',
  'transport.oauth.redirectUri': 'http://127.0.0.1/callback',
  'transport.oauth.clientMetadataUrl': 'https://template.invalid/client',
};
/** Fields replaced whole: a key with a template inside could never parse as one. */
const WHOLE_STAND_INS: Record<string, string> = { 'transport.oauth.privateKey': 'template' };
/** What a template reference stands in as inside other text: short, non-blank, no line break. */
const REFERENCE_STAND_IN = 'template';

function fail(serverId: string, field: string, problem: string, fix?: string): never {
  throw new McpConfigError(`MCP server "${serverId}": \`${field}\` ${problem}${fix === undefined ? '' : `; ${fix}`}.`, { serverId, field });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkFleetFields(id: string, input: Record<string, unknown>): void {
  const parsed = fleetFieldsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    const field = path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') fail(id, field, 'is not a known field', 'use initialDelayMs, maxDelayMs, backoffMultiplier or maxRestartAttempts');
    // Zod messages describe types and bounds, never the rejected value.
    fail(id, field, issue.message.charAt(0).toLowerCase() + issue.message.slice(1));
  }
  const policy = parsed.data.restartPolicy;
  if (policy !== undefined) {
    const initial = policy.initialDelayMs ?? DEFAULT_RESTART_POLICY.initialDelayMs;
    const max = policy.maxDelayMs ?? DEFAULT_RESTART_POLICY.maxDelayMs;
    if (max < initial) {
      const field = policy.maxDelayMs === undefined ? 'restartPolicy.initialDelayMs' : 'restartPolicy.maxDelayMs';
      fail(id, field, 'leaves maxDelayMs smaller than initialDelayMs (defaults: 30,000 and 1,000)', 'raise maxDelayMs or lower initialDelayMs');
    }
  }
  const transport = input.transport;
  if (isRecord(transport) && transport.envFile !== undefined) {
    if (transport.type !== 'stdio') fail(id, 'transport.envFile', 'applies only to stdio servers', 'remove it: an env file sets the environment of a local process');
    if (typeof transport.envFile !== 'string' || transport.envFile.trim() === '') {
      fail(id, 'transport.envFile', 'must be a non-empty string', 'give the path of a dotenv file');
    }
  }
}

function standIn(field: McpTemplateField, id: string): string {
  const parts = parseTemplate(field.text, { serverId: id, field: field.field });
  return URL_STAND_INS[field.field] ?? WHOLE_STAND_INS[field.field] ?? substituteTemplate(parts, () => REFERENCE_STAND_IN);
}

/** A copy without `undefined` values, so a config compares and saves as what it says. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, withoutUndefined(item)]),
  );
}

/**
 * Validates a fleet server config (what `McpServerManager` receives, and what the file
 * loader produces): the id rule (`validateFleetServerId`), `disabled` (boolean),
 * `autoApprove` (string array), `restartPolicy` (a strict object: `initialDelayMs` and
 * `maxDelayMs` integers in [1, 86,400,000] with `maxDelayMs` at least `initialDelayMs`
 * once defaults are applied, `backoffMultiplier` in [1, 1,000], `maxRestartAttempts`
 * an integer in [0, 1,000,000]), `transport.envFile` only on stdio, the syntax of every
 * template, then the provider's own rules. A templated `url` is checked only after
 * expansion. Returns a deep copy of `input` with no defaults filled in and `undefined`
 * values dropped. Throws `McpConfigError` with `serverId` and `field`.
 */
export function checkFleetServerConfig(input: unknown): McpFleetServerConfig {
  if (!isRecord(input)) {
    throw new McpConfigError('MCP server config must be an object with `id` and `transport`.', { field: '(root)' });
  }
  const id = validateFleetServerId(input.id);
  checkFleetFields(id, input);
  // Parse every templated field first, so a syntax error names its field rather than a later stand-in.
  for (const field of templateFields(input)) {
    if (hasTemplates(field.text)) parseTemplate(field.text, { serverId: id, field: field.field });
  }
  const probe = replaceTemplateFields(input, (field) => standIn(field, id));
  delete probe.disabled;
  delete probe.autoApprove;
  delete probe.restartPolicy;
  if (isRecord(probe.transport)) delete probe.transport.envFile;
  resolveServerConfig(probe);
  return withoutUndefined(input) as McpFleetServerConfig;
}
