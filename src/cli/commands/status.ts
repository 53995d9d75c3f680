/**
 * `mcp-fleet status [--watch]`: the supervision view. Starts every enabled server and
 * supervises them (restart policies apply), then shows each one's state, era, tools,
 * restart attempts, next retry and last error. With `--watch` it keeps supervising and
 * prints a line per change until Ctrl-C.
 *
 * JSON: `{ servers: [<McpFleetServerStatus>] }`; with `--watch`, then one status per line
 * (JSON Lines) as they change.
 */
import type { McpFleetServerStatus } from '../../fleet/status.js';
import { EXIT, rowWording, type ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import type { CommandContext } from '../context.js';
import { firstLine } from '../signature.js';

function nextRetry(status: McpFleetServerStatus): string {
  if (status.nextRestartAt === undefined) return '';
  return `in ${Math.max(0, Math.round((status.nextRestartAt - Date.now()) / 100) / 10)} s`;
}

function row(output: Output, status: McpFleetServerStatus): string[] {
  const c = output.out;
  const colour = status.state === 'running' ? c.green : status.state === 'disabled' || status.state === 'stopped' ? c.dim : status.state === 'starting' || status.state === 'restarting' ? c.yellow : c.red;
  return [
    status.id,
    colour(status.state),
    status.protocolVersion === undefined ? '' : `${status.era} ${status.protocolVersion}`,
    String(status.toolCount),
    String(status.restartAttempts),
    nextRetry(status),
    firstLine(rowWording(status.id, status.lastError ?? ''), 80),
  ];
}

export async function status(context: CommandContext): Promise<ExitCode> {
  const fleet = await context.fleet();
  const { output, signal } = context;
  await fleet.start(undefined, signal);
  signal.throwIfAborted();
  fleet.manager.startMonitoring();
  const statuses = fleet.manager.statuses();
  if (output.json) output.printJson({ servers: statuses });
  else output.table(['SERVER', 'STATE', 'ERA', 'TOOLS', 'RESTARTS', 'NEXT RETRY', 'ERROR'], statuses.map((status) => row(output, status)));
  if (context.options.watch !== true) return statuses.every((status) => status.state === 'running' || status.state === 'disabled') ? EXIT.ok : EXIT.failure;
  if (!output.json) output.note('supervising; Ctrl-C to stop');
  const onStatus = (status: McpFleetServerStatus): void => {
    if (output.json) output.io.stdout.write(`${JSON.stringify(status)}\n`);
    else output.printLine(`${new Date().toISOString().slice(11, 19)}  ${row(output, status).filter((cell) => cell !== '').join('  ')}`);
  };
  fleet.manager.on('status', onStatus);
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  fleet.manager.off('status', onStatus);
  return EXIT.interrupted;
}
