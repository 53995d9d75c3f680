/**
 * The `mcp-fleet` command: its subcommands and options (commander), and one run of it,
 * start to exit code. Each subcommand's code is imported only when it runs, so
 * `mcp-fleet --version` or `--help` never loads the MCP SDK.
 */
import { Command, CommanderError, Option } from 'commander';
import { CliError, cliWording, EXIT, exitCodeOf, type ExitCode } from './errors.js';
import type { AdHocServer, CliFleet, CommandContext, ServerOptions } from './context.js';
import { type CliIO, Output } from './output.js';
import { VERSION } from './version.js';

export { VERSION } from './version.js';

type Action = (context: CommandContext, ...args: unknown[]) => Promise<ExitCode | void>;

/** A subcommand's handler, loaded when it runs: `load` resolves to the module, `name` the export. */
function lazy<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string): Action {
  return async (context, ...args) => {
    const module = await load();
    return (module[name] as Action)(context, ...args);
  };
}

export interface RunResult {
  exitCode: ExitCode;
}

/**
 * Runs the command with `argv` (the words after `mcp-fleet`) on `io`, cancelled by
 * `signal` (Ctrl-C). Resolves with the exit code; never throws, never calls `process.exit`.
 */
export async function run(argv: readonly string[], io: CliIO, signal: AbortSignal): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.ok;
  let fleet: Promise<CliFleet> | undefined;
  let output = new Output(io, { json: false, noColor: argv.includes('--no-color'), debug: argv.includes('--debug') });
  const program = new Command('mcp-fleet');
  program
    .description('Try, call and debug MCP servers from a terminal, from your editors\' mcp.json or ad hoc.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${output.err.red('error')} ${text.replace(/^error: /, '')}`),
    })
    .addHelpText(
      'after',
      [
        '',
        'Servers come from --stdio/--http (ad hoc), else --config FILE, else $MCP_FLEET_CONFIG, else the first of',
        './mcp.json, ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json. Any editor\'s mcp.json dialect works.',
        '',
        'Exit codes: 0 success, 1 a tool error or a server failure, 2 a usage or configuration error, 130 interrupted.',
        '',
        'Examples:',
        '  mcp-fleet list --stdio "npx -y @modelcontextprotocol/server-everything"',
        '  mcp-fleet call server-everything.echo message=hello --stdio "npx -y @modelcontextprotocol/server-everything"',
        '  mcp-fleet call files.read_file path=/tmp/notes.txt --json | jq .content',
      ].join('\n'),
    );

  const define = (name: string, description: string, action: Action, withServers = true): Command => {
    const adHoc: AdHocServer[] = [];
    const command = program.command(name).description(description);
    if (withServers) {
      command
        .option('--config <file>', 'the MCP config file (default: $MCP_FLEET_CONFIG, else ./mcp.json, ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json)')
        .option('--stdio <command>', 'an ad-hoc stdio server: its command line, run without a shell (repeatable)', (value: string) => {
          adHoc.push({ kind: 'stdio', value });
          return value;
        })
        .option('--http <url>', 'an ad-hoc Streamable HTTP server (repeatable)', (value: string) => {
          adHoc.push({ kind: 'http', value });
          return value;
        })
        .option('--name <id>', 'the id of the ad-hoc server given just before it (repeatable)', (value: string) => {
          const last = adHoc.at(-1);
          if (last === undefined || last.name !== undefined) throw new CliError(`--name ${value} must follow the --stdio or --http server it names.`, EXIT.usage);
          last.name = value;
          return value;
        });
    }
    command
      .option('--json', 'print a stable JSON shape instead of text (see the README)')
      .option('--no-color', 'never colour the output (NO_COLOR does the same)')
      .option('--debug', 'log what the library does on stderr, and show stack traces');
    command.action(async (...parsed: unknown[]) => {
      // commander passes the positional arguments, then the options, then the command.
      const cmd = parsed.at(-1) as Command;
      const positional = parsed.slice(0, -2);
      const options = { ...cmd.opts(), adHoc } as ServerOptions & Record<string, unknown>;
      output = new Output(io, { json: options.json === true, noColor: options.color === false, debug: options.debug === true });
      const context: CommandContext = {
        io,
        output,
        signal,
        options,
        fleet: () => (fleet ??= import('./context.js').then(({ CliFleet }) => CliFleet.open(io, output, options))),
      };
      const code = await action(context, ...positional);
      if (code !== undefined) exitCode = code;
    });
    return command;
  };

  define('list', 'list the servers, or one server\'s tools with their parameters', lazy(() => import('./commands/list.js'), 'list')).argument('[server]', 'a server id');
  define('call', 'call a tool: mcp-fleet call <server>.<tool> key=value ...', lazy(() => import('./commands/call.js'), 'call'))
    .argument('<target>', '<server>.<tool>')
    .argument('[arguments...]', 'key=value arguments; a value that parses as JSON is taken as JSON')
    .option('--args <json>', 'the arguments as one JSON object (wins over key=value)')
    .addOption(new Option('--timeout <ms>', 'give up on the call after this many milliseconds').argParser(positiveInteger('--timeout')));
  define('ping', 'connect to servers, list their tools, and report the round trip', lazy(() => import('./commands/ping.js'), 'ping')).argument('[servers...]', 'server ids (default: all)');
  define('status', 'the supervision view: state, restarts, next retry, era', lazy(() => import('./commands/status.js'), 'status')).option(
    '--watch',
    'keep supervising and print each change until Ctrl-C',
  );
  define('search', 'rank every server\'s tools for a query (tools_search)', lazy(() => import('./commands/search.js'), 'search'))
    .argument('<query...>', 'words to look for')
    .addOption(new Option('--limit <n>', 'at most this many tools (1-64)').argParser(positiveInteger('--limit')));
  define('resources', 'list a server\'s resources and resource templates', lazy(() => import('./commands/resources.js'), 'resources')).argument('<server>', 'a server id');
  define('read', 'read a resource', lazy(() => import('./commands/resources.js'), 'read')).argument('<server>', 'a server id').argument('<uri>', 'the resource URI');
  define('prompts', 'list a server\'s prompts', lazy(() => import('./commands/prompts.js'), 'prompts')).argument('<server>', 'a server id');
  define('prompt', 'get a prompt with its arguments filled in', lazy(() => import('./commands/prompts.js'), 'prompt'))
    .argument('<server>', 'a server id')
    .argument('<name>', 'the prompt name')
    .argument('[arguments...]', 'key=value arguments');
  define('events', 'list a server\'s MCP Events types, or tail one as JSON lines until Ctrl-C', lazy(() => import('./commands/events.js'), 'events'))
    .argument('<server>', 'a server id')
    .argument('[name]', 'an event type to tail: one JSON line per event on stdout, the cursor after each batch on stderr')
    .argument('[arguments...]', 'key=value subscription arguments; a value that parses as JSON is taken as JSON')
    .option('--args <json>', 'the subscription arguments as one JSON object (wins over key=value)')
    .option('--cursor <cursor>', 'resume after this cursor (the last "cursor:" line of an earlier run; default: from now)')
    .addOption(new Option('--mode <mode>', 'the delivery (default: push when the type offers it, else poll)').choices(['poll', 'push']));
  define('auth', 'authorize a server with OAuth from the terminal (no browser needed here)', lazy(() => import('./commands/auth.js'), 'auth'))
    .argument('<server>', 'a server id')
    .option('--logout', 'forget the stored grant instead');
  define('serve', 'serve the config file\'s servers as one MCP server (both protocol eras): --stdio or --http', lazy(() => import('./commands/serve.js'), 'serve'), false)
    .option('--config <file>', 'the MCP config file (default: $MCP_FLEET_CONFIG, else ./mcp.json, ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json)')
    .option('--stdio', 'serve on stdin and stdout, for a client that launches the gateway')
    .option('--http', 'listen for Streamable HTTP clients; the URL is printed on stderr')
    .option('--host <host>', 'the interface to bind (default 127.0.0.1; another needs a token or OAuth)')
    .addOption(new Option('--port <port>', 'the port (default 8808; 0 picks a free one)').argParser(nonNegativeInteger('--port')))
    .option('--path <path>', 'the endpoint path (default /mcp)')
    .addOption(new Option('--names <mode>', 'auto: a server\'s own names while unique; prefixed: <server>_<name> always').choices(['auto', 'prefixed']))
    .addOption(new Option('--expose <mode>', 'all: every tool in tools/list; discovery: tools_groups, tools_search, tools_select (and what the client selects)').choices(['all', 'discovery']))
    .option('--profile <name>', 'with --stdio: serve only this profile of the config file\'s "profiles" (over HTTP each is at <path>/<name>)')
    .option('--no-watch', 'do not apply edits of the config file while serving')
    .addOption(new Option('--drain-ms <ms>', 'on SIGTERM or Ctrl-C, how long calls in flight may finish (default 10000)').argParser(positiveInteger('--drain-ms')))
    .option('--token-file <file>', 'require this bearer token (the file\'s first line; default $MCP_FLEET_GATEWAY_TOKEN)')
    .option('--oauth-issuer <url>', 'be an OAuth resource server: accept JWT access tokens of this authorization server, meant for this gateway')
    .option('--oauth-jwks-uri <url>', 'where its signing keys are (default: the jwks_uri of its metadata)')
    .option('--oauth-resource <url>', 'the gateway\'s URL as clients reach it, and the audience tokens must name (default: the URL it listens on)')
    .option('--oauth-scope <scope...>', 'scopes every token must carry');
  define('config', 'show or edit the config file: list | add | remove | enable | disable | import', lazy(() => import('./commands/config.js'), 'config'), false)
    .argument('<action>', 'list, add, remove, enable, disable or import')
    .argument('[id]', 'the server id (add, remove, enable, disable)')
    .option('--stdio <command>', 'config add: the stdio server\'s command line')
    .option('--http <url>', 'config add: the Streamable HTTP server\'s URL')
    .option('--env <KEY=VALUE>', 'config add: an environment variable (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--header <KEY=VALUE>', 'config add: an HTTP header (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--from <editor>', 'config import: only from claude, claude-code, cursor, vscode, windsurf or gemini')
    .option('--config <file>', 'the MCP config file to edit (default as for the other commands; config add creates ./mcp.json when there is none)');

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    exitCode = report(error, output, signal);
  } finally {
    if (fleet !== undefined) await fleet.then((opened) => opened.close(), () => {});
  }
  return signal.aborted ? EXIT.interrupted : exitCode;
}

/** The one line a failure is reported with, and its exit code. */
function report(error: unknown, output: Output, signal: AbortSignal): ExitCode {
  if (error instanceof CommanderError) {
    // Help and the version were printed: not a failure.
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
  }
  if (signal.aborted) {
    output.error('interrupted');
    return EXIT.interrupted;
  }
  const message = error instanceof Error ? error.message : String(error);
  output.error(cliWording(message));
  if (output.options.debug && error instanceof Error && error.stack !== undefined) output.io.stderr.write(`${error.stack}\n`);
  return exitCodeOf(error);
}

function positiveInteger(flag: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1) throw new CliError(`${flag} takes a positive whole number, not "${value}".`, EXIT.usage);
    return number;
  };
}

function nonNegativeInteger(flag: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0) throw new CliError(`${flag} takes a whole number, 0 or more, not "${value}".`, EXIT.usage);
    return number;
  };
}
