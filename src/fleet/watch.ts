/**
 * Following a config file on disk. Editors save by writing a temporary file and renaming
 * it over the original, which ends a watch on the file itself, so the folder is watched
 * and events are filtered by name. Bursts of events are coalesced, and reloads run one at
 * a time: an edit that arrives during a reload is handled once that reload is done. The
 * callback reads the file itself (under its owner's lock).
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { errorMessage } from '../mcp/errors.js';
import type { McpLogger } from '../mcp/logger.js';

/** How long a burst of file events may last before the file is read. */
const SETTLE_MS = 50;

export class ConfigWatcher {
  private readonly watcher: FSWatcher;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly onChange: () => Promise<void>,
    private readonly logger: McpLogger,
  ) {
    const name = basename(path);
    this.watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      // Some platforms do not name the file; then any event in the folder may be it.
      if (file === null || file === name) this.schedule();
    });
    this.watcher.on('error', (error) => logger.warn({ path, error: errorMessage(error) }, 'watching the MCP config stopped'));
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.read();
    }, SETTLE_MS);
  }

  private read(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (this.closed) return;
        await this.onChange().catch((error: unknown) => this.logger.warn({ path: this.path, error: errorMessage(error) }, 'reloading the MCP config failed'));
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = undefined;
    });
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.watcher.close();
  }
}
