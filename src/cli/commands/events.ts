/**
 * `mcp-fleet events <server>` lists a server's MCP Events types (name, delivery modes,
 * description); `mcp-fleet events <server> <name> [key=value ...] [--args '<json>']
 * [--cursor C] [--mode poll|push]` tails one: one JSON line per event on stdout
 * (`{"eventId","name","timestamp","data"}`), and after each batch `cursor: <c>` on
 * stderr, so a script resumes with `--cursor <c>`. It runs until Ctrl-C (exit 130) or
 * until the subscription ends (a terminal error: one line naming the server, the type and
 * the error's kind; exit 1, or 2 for arguments or a cursor the server refused). Push is
 * used when the type offers it, else poll. A recoverable error is a warning (the
 * subscription retries from the last cursor, saying when), a change of the server's types
 * a note.
 *
 * JSON: `{ events: [McpEventType] }` (`events: null` when the server does not implement
 * MCP Events); tailing, the event lines are the same, and a failure is the envelope
 * `{ server_id, event, error: { code, message, kind?, rpcCode?, reason?, data?, dataDropped? } }`
 * (`data`: the server's `error.data`, redacted, at most 4 KiB; `dataDropped: true` when it
 * sent more).
 */
import { nearMatches } from '../../core/similarity.js';
import type { McpEventErrorData } from '../../mcp/context/events/error-data.js';
import { McpEventError } from '../../mcp/context/events/errors.js';
import type { McpEvent, McpEventSignal, McpEventSubscription, McpEventType } from '../../mcp/context/events/types.js';
import { callArguments } from '../args.js';
import { cliWording, EXIT, exitCodeOf, type ExitCode, usageError } from '../errors.js';
import type { CliIO } from '../output.js';
import type { CommandContext } from '../context.js';
import { firstLine, fitArguments, missingArguments, toolSignature } from '../signature.js';

export async function events(context: CommandContext, serverId: unknown, name: unknown, words: unknown): Promise<ExitCode> {
  const id = String(serverId);
  if (typeof name === 'string') return tail(context, id, name, words as string[]);
  if (context.options.cursor !== undefined || context.options.mode !== undefined || context.options.args !== undefined) {
    throw usageError(`--args, --cursor and --mode are for tailing an event type: mcp-fleet events ${id} <name> (mcp-fleet events ${id} lists them).`);
  }
  const manager = await (await context.fleet()).started(id, context.signal);
  const types = await manager.listEvents(id, { signal: context.signal });
  const { output } = context;
  if (output.json) {
    output.printJson({ events: types });
    return EXIT.ok;
  }
  if (types === null) {
    output.note(`MCP server "${id}" does not implement MCP Events: it has no event types to list.`);
    return EXIT.ok;
  }
  output.table(
    ['NAME', 'DELIVERY', 'DESCRIPTION'],
    types.map((type) => [output.out.cyan(type.name), type.delivery.join(', '), firstLine(type.description, 60)]),
  );
  output.note(`${types.length} event ${types.length === 1 ? 'type' : 'types'}; tail one with mcp-fleet events ${id} <name>`);
  return EXIT.ok;
}

/** What the envelope shows of a failure. */
interface Failure {
  code?: string;
  message: string;
  kind?: string;
  rpcCode?: number | undefined;
  reason?: string | undefined;
  data?: McpEventErrorData | undefined;
  dataDropped?: boolean;
}

/** A failure before or of the subscription: in `--json` the envelope's shape, in text one line on stderr. */
function failure(context: CommandContext, serverId: string, name: string, error: Failure): void {
  const { output } = context;
  if (!output.json) {
    output.error(cliWording(error.message));
    return;
  }
  const { code = 'event_failed', message, kind, rpcCode, reason, data, dataDropped } = error;
  output.printJson({
    server_id: serverId,
    event: name,
    error: {
      code,
      message: cliWording(message),
      ...(kind === undefined ? {} : { kind }),
      ...(rpcCode === undefined ? {} : { rpcCode }),
      ...(reason === undefined ? {} : { reason }),
      ...(data === undefined ? {} : { data }),
      ...(dataDropped === true ? { dataDropped } : {}),
    },
  });
}

/** An Events error's message without the `MCP server "<id>": ` it starts with (the line names the server already). */
function detail(serverId: string, error: McpEventError): string {
  const message = cliWording(error.message);
  const prefix = `MCP server "${serverId}": `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Writes `text` and resolves once the stream took it, so a cursor is accepted only after its events are out. */
function write(stream: CliIO['stdout'], text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
}

/** An event as one line of stdout. */
function eventLine(event: McpEvent): string {
  return `${JSON.stringify({ eventId: event.eventId, name: event.name, timestamp: event.timestamp, data: event.data })}\n`;
}

async function tail(context: CommandContext, serverId: string, name: string, words: readonly string[]): Promise<ExitCode> {
  const given = callArguments(words, context.options.args as string | undefined);
  const fleet = await context.fleet();
  const { output, signal } = context;
  const startFailure = await fleet.startOne(serverId, signal);
  if (startFailure !== undefined) {
    failure(context, serverId, name, { code: (startFailure as { code?: string }).code ?? 'server_unavailable', message: startFailure.message });
    return exitCodeOf(startFailure);
  }
  const { manager } = fleet;
  const types = await manager.listEvents(serverId, { signal });
  signal.throwIfAborted();
  if (types === null) throw usageError(`MCP server "${serverId}" does not implement MCP Events, so it has no event type "${name}".`);
  const type = types.find((candidate) => candidate.name === name);
  if (type === undefined) {
    const near = nearMatches(name, types.map((candidate) => candidate.name));
    throw usageError(`MCP server "${serverId}" has no event type "${name}"${near.length > 0 ? `; did you mean ${near.join(', ')}?` : '.'} (mcp-fleet events ${serverId} lists them)`);
  }
  const mode = chooseMode(serverId, type, context.options.mode as 'poll' | 'push' | undefined);
  const signature = toolSignature(name, type.inputSchema);
  const missing = missingArguments(type.inputSchema, given.args);
  if (missing.length > 0) throw usageError(`${name} needs ${missing.map((key) => `${key}=...`).join(' ')}: ${signature}`);
  const { args, problems } = fitArguments(type.inputSchema, given.args, given.typed);
  if (problems.length > 0) throw usageError(`${name}: ${problems.join('; ')}: ${signature}`);
  const cursor = context.options.cursor as string | undefined;

  const { io } = output;
  let listening = false;
  let troubled = false;
  let end!: (error: McpEventError | undefined) => void;
  const ended = new Promise<McpEventError | undefined>((resolve) => (end = resolve));
  const deliver = async (event: McpEventSignal): Promise<void> => {
    switch (event.type) {
      case 'active':
        if (event.truncated) warn(output, `MCP server "${serverId}" could not replay ${name} from cursor ${cursor ?? 'now'}: events may have been lost (truncated).`);
        // As the progress lines: a live state for a person at a terminal, nothing when piped.
        if (io.stderr.isTTY === true && (!listening || troubled)) {
          output.note(`${listening ? 'listening again' : 'listening'} to ${name} on ${serverId} (${event.mode}${listening ? '' : `, ${cursor === undefined ? 'from now' : `after cursor ${cursor}`}`}); Ctrl-C to stop`);
        }
        listening = true;
        troubled = false;
        return;
      case 'events':
        if (event.events.length > 0) await write(io.stdout, event.events.map(eventLine).join(''));
        if (event.cursor !== null) output.note(`cursor: ${event.cursor}`);
        return;
      case 'error':
        troubled = true;
        warn(output, `${name} on MCP server "${serverId}" (${event.error.kind}): ${detail(serverId, event.error)}; the subscription goes on${event.retryInMs === undefined ? '' : `, retrying in ${Math.round(event.retryInMs / 1000)} s`}.`);
        return;
      case 'list_changed':
        output.note(`MCP server "${serverId}" changed its event types (mcp-fleet events ${serverId} lists them).`);
        return;
      case 'terminated':
        end(event.error);
        return;
    }
  };

  let subscription: McpEventSubscription;
  try {
    subscription = manager.subscribeEvents(serverId, { name, arguments: args, mode, ...(cursor === undefined ? {} : { cursor }) }, { deliver });
  } catch (error) {
    if (error instanceof McpEventError && error.kind === 'invalid_params') throw usageError(error.message);
    throw error;
  }
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (signal.aborted) resolve('interrupted');
    else signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
  });
  const outcomeOf = await Promise.race([ended, interrupted]);
  if (outcomeOf === 'interrupted') {
    await subscription.cancel();
    return EXIT.interrupted;
  }
  if (outcomeOf === undefined) return EXIT.ok;
  const error = outcomeOf;
  failure(context, serverId, name, {
    code: error.code,
    kind: error.kind,
    rpcCode: error.rpcCode,
    reason: error.reason,
    data: error.data,
    dataDropped: error.dataDropped,
    message: `the ${name} subscription of MCP server "${serverId}" ended (${error.kind}): ${detail(serverId, error)}`,
  });
  return error.kind === 'invalid_params' ? EXIT.usage : EXIT.failure;
}

/** `--mode`, else push when the type offers it, else poll; a usage error when the type cannot be tailed so. */
function chooseMode(serverId: string, type: McpEventType, asked: 'poll' | 'push' | undefined): 'poll' | 'push' {
  const offered = type.delivery.join(', ') || 'no delivery mode';
  if (asked !== undefined) {
    if (!type.delivery.includes(asked)) throw usageError(`${type.name} on MCP server "${serverId}" is not delivered by ${asked} (it offers ${offered}).`);
    return asked;
  }
  if (type.delivery.includes('push')) return 'push';
  if (type.delivery.includes('poll')) return 'poll';
  throw usageError(`${type.name} on MCP server "${serverId}" offers ${offered}; mcp-fleet events can tail only poll or push delivery.`);
}

/** A warning line on stderr. */
function warn(output: CommandContext['output'], text: string): void {
  output.io.stderr.write(`${output.err.yellow('warning')} ${text}\n`);
}
