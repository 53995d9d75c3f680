/**
 * Makes sure no stdio server outlives the host. Each child runs in its own process
 * group (so a terminal's Ctrl-C reaches only the host); while any group is alive, the
 * host's exit kills every live group with SIGKILL. On SIGINT, SIGTERM or SIGHUP the
 * application decides: when it handles the signal itself (a REPL cancelling one turn on
 * Ctrl-C, a command cancelling a call), its servers are left alone, and still killed
 * when the process exits; when it does not, the groups are killed and the signal is
 * raised again, so the default action (terminating) still happens.
 */

const liveGroups = new Set<number>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

/** Sends `signal` to a whole process group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(process.platform === 'win32' ? pgid : -pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function killAll(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener than ours: the application handles the signal, and owns what happens next.
  if (process.listenerCount(signal) > 1) return;
  killAll();
  uninstall();
  // Our listener was the only one: restore the default action (terminate) by re-raising.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAll);
  // First in line: an application's `once` listener removes itself just before it runs, so
  // counting listeners after it would miss it and take the signal for unhandled.
  for (const signal of SIGNALS) process.prependListener(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', killAll);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** Registers a live process group. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  install();
}

/** Forgets a process group that has been terminated. */
export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
  if (liveGroups.size === 0) uninstall();
}
