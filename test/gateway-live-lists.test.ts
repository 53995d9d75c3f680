/**
 * Live lists through `mcp-fleet serve --http`: a 2025-11-25 session (pushed
 * notifications) and a 2026-07-28 client (a `subscriptions/listen` stream) both hear
 * `tools/list_changed` when the config file gains a server, when an upstream changes its
 * own tools, and when a SIGKILLed server is restarted, and the list they fetch then is
 * the new one. Latencies are printed, not asserted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ToolListChangedNotificationSchema as V1ToolListChanged } from '@modelcontextprotocol/sdk/types.js';
import { observationLog, observed, tempDir } from './helpers.js';
import { cleanUp, modernClient, onCleanUp, serve, stdioServer, v1Client, writeConfig } from './gateway-helpers.js';

afterEach(cleanUp);

interface Heard {
  at: number;
  names: Promise<string[]>;
}

/**
 * Follows one client's tool list: every `list_changed` it hears is timed on arrival and
 * answered by listing the tools again. `after(time, test)` resolves with the first list,
 * heard after `time`, that passes `test`, and how long after `time` it was heard.
 */
class ListFollower {
  private readonly heard: Heard[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(private readonly list: () => Promise<string[]>) {}

  /** Called by the client's notification handler. */
  changed = (): void => {
    this.heard.push({ at: performance.now(), names: this.list() });
    for (const wake of this.waiters) wake();
  };

  async after(time: number, test: (names: string[]) => boolean): Promise<{ ms: number; names: string[] }> {
    for (let index = 0; ; index++) {
      while (index >= this.heard.length) await new Promise<void>((wake) => this.waiters.add(wake)).finally(() => this.waiters.clear());
      const heard = this.heard[index]!;
      if (heard.at < time) continue;
      const names = await heard.names;
      if (test(names)) return { ms: Math.round(heard.at - time), names };
    }
  }
}

function writeTools(file: string, names: string[]): void {
  writeFileSync(file, JSON.stringify(names.map((name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } }))));
}

/** Resolves with the time the fixture process after `count` earlier ones wrote its start. */
async function nextStart(log: string, count: number): Promise<{ at: number; pid: number }> {
  for (;;) {
    const starts = observed(log).filter((observation) => observation.event === 'start');
    if (starts.length > count) return { at: performance.now(), pid: starts[count]!.pid };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('mcp-fleet serve --http, live lists', () => {
  test('clients of both eras hear list_changed for a config edit, an upstream change and a restart after SIGKILL, and list the new tools', async () => {
    const dir = tempDir();
    const config = join(dir, 'mcp.json');
    const tools = join(dir, 'tools.json');
    const log = observationLog();
    writeTools(tools, ['alpha']);
    const catalog = {
      ...stdioServer('catalog-server.mjs', { FIXTURE_TOOLS_FILE: tools, FIXTURE_LOG: log }),
      restartPolicy: { initialDelayMs: 50 },
    };
    writeConfig(config, { catalog });
    const gateway = await serve(config);
    const { pid: firstPid } = await nextStart(log, 0);

    const old = await v1Client(gateway.url);
    const modern = await modernClient(gateway.url);
    const names = (tools: Array<{ name: string }>): string[] => tools.map((tool) => tool.name).sort();
    const followers = {
      '2025-11-25': new ListFollower(async () => names((await old.listTools()).tools)),
      '2026-07-28': new ListFollower(async () => names((await modern.listTools()).tools)),
    };
    old.setNotificationHandler(V1ToolListChanged, () => followers['2025-11-25'].changed());
    modern.setNotificationHandler('notifications/tools/list_changed', () => followers['2026-07-28'].changed());
    const subscription = await modern.listen({ toolsListChanged: true });
    onCleanUp(() => subscription.close());
    expect(names((await old.listTools()).tools)).toEqual(['alpha']);

    const report: string[] = [];
    const bothHear = async (what: string, since: number, test: (names: string[]) => boolean): Promise<void> => {
      for (const [era, follower] of Object.entries(followers)) {
        const { ms } = await follower.after(since, test);
        report.push(`${what}, ${era}: ${ms} ms`);
      }
    };

    // An upstream's own change: its tools file gains beta, and it announces that.
    let since = performance.now();
    writeTools(tools, ['alpha', 'beta']);
    await bothHear('upstream list_changed', since, (list) => list.includes('beta'));

    // The config file gains a server (fleet-server.mjs has echo and whoami).
    since = performance.now();
    writeConfig(config, { catalog, later: stdioServer('fleet-server.mjs') });
    await bothHear('mcp.json edit adding a server', since, (list) => list.includes('whoami'));

    // SIGKILL: the fleet restarts the server, and clients hear it once it is back (timed from its new process's start).
    process.kill(firstPid, 'SIGKILL');
    const restarted = await nextStart(log, 1);
    expect(restarted.pid).not.toBe(firstPid);
    await bothHear('restart after SIGKILL (from the new process start)', restarted.at, (list) => list.includes('alpha') && list.includes('beta'));

    expect(names((await modern.listTools()).tools)).toEqual(names((await old.listTools()).tools));
    console.info(`gateway: list_changed heard\n  ${report.join('\n  ')}`);
  });
});
