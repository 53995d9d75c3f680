/**
 * `mcp-fleet ping [server ...]`: connects to each server, lists its tools and reports how
 * long that took (all servers at once; default every enabled one).
 *
 * JSON: `{ servers: [{ id, ok, ms, toolCount, era?, protocolVersion?, error? }] }`. Exit 1 when any failed.
 */
import { EXIT, rowWording, type ExitCode } from '../errors.js';
import type { CommandContext } from '../context.js';
import { firstLine } from '../signature.js';

export async function ping(context: CommandContext, servers: unknown): Promise<ExitCode> {
  const fleet = await context.fleet();
  const ids = (servers as string[]).length > 0 ? (servers as string[]) : undefined;
  for (const id of ids ?? []) fleet.require(id);
  const started = performance.now();
  const timings = new Map<string, number>();
  const onStatus = (status: { id: string; state: string }): void => {
    if (status.state === 'running' || status.state === 'failed_to_start') timings.set(status.id, performance.now() - started);
  };
  fleet.manager.on('status', onStatus);
  const outcomes = await fleet.start(ids, context.signal).finally(() => fleet.manager.off('status', onStatus));
  context.signal.throwIfAborted();
  const rows = outcomes.map((outcome) => {
    const status = fleet.manager.status(outcome.id);
    return {
      id: outcome.id,
      ok: outcome.ok,
      ms: Math.round(timings.get(outcome.id) ?? performance.now() - started),
      toolCount: status.toolCount,
      ...(status.era === undefined ? {} : { era: status.era, protocolVersion: status.protocolVersion }),
      ...(outcome.ok ? {} : { error: outcome.error.message }),
    };
  });
  const { output } = context;
  if (output.json) {
    output.printJson({ servers: rows });
  } else {
    const c = output.out;
    output.table(
      ['SERVER', 'RESULT', 'TIME', 'TOOLS', 'ERA', 'ERROR'],
      rows.map((row) => [
        row.id,
        row.ok ? c.green('ok') : c.red('failed'),
        `${row.ms} ms`,
        String(row.toolCount),
        row.protocolVersion === undefined ? '' : `${row.era} ${row.protocolVersion}`,
        firstLine(rowWording(row.id, row.error ?? ''), 100),
      ]),
    );
  }
  return rows.every((row) => row.ok) ? EXIT.ok : EXIT.failure;
}
