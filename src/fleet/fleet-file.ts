/**
 * The file behind a fleet: the loaded document, saving the registry into it (atomically,
 * one save at a time, templates unexpanded) and following it on disk.
 */
import { resolve } from 'node:path';
import { McpFleetError } from '../mcp/errors.js';
import { Mutex } from '../mcp/locks.js';
import type { McpLogger } from '../mcp/logger.js';
import { writeFileAtomic } from './atomic-write.js';
import { McpConfigDocument, parseMcpConfig } from './config-file.js';
import type { McpConfigDialect } from './dialects.js';
import type { McpFleetServerConfig } from './server-config.js';
import { ConfigWatcher } from './watch.js';

export class FleetFile {
  private readonly saveLock = new Mutex();
  private watcher: ConfigWatcher | undefined;

  constructor(
    private document: McpConfigDocument | undefined,
    /** The dialect of a new file, when the fleet was built in code. */
    private readonly dialect: McpConfigDialect,
    private readonly workspaceFolder: () => string,
    private readonly logger: McpLogger,
  ) {}

  /** The document as last loaded, saved or reloaded. */
  get current(): McpConfigDocument | undefined {
    return this.document;
  }

  /**
   * Writes `servers` to `path` (default: the file's own path). Saving to the file's own
   * path (or the first save of a fleet built in code) makes the result the current
   * document, so later saves patch what is on disk now.
   */
  async save(servers: () => McpFleetServerConfig[], path?: string): Promise<void> {
    await this.saveLock.run(async () => {
      const target = path === undefined ? this.document?.path : resolve(path);
      if (target === undefined) {
        throw new McpFleetError('config_path_missing', 'This fleet was not loaded from a file; pass the path to save(path).');
      }
      const document = this.document ?? McpConfigDocument.create({ dialect: this.dialect, path: target, workspaceFolder: this.workspaceFolder() });
      // The registry as it is when this save's turn comes.
      const text = document.render(servers());
      await writeFileAtomic(target, text);
      if (this.document === undefined || this.document.path === target) this.document = this.reparse(text, target, document);
    });
  }

  private reparse(text: string, path: string | undefined, like: McpConfigDocument): McpConfigDocument {
    return parseMcpConfig(text, { dialect: like.dialect, ...(path === undefined ? {} : { path }), ...(like.workspaceFolder === undefined ? {} : { workspaceFolder: like.workspaceFolder }) });
  }

  /**
   * Follows the file: each edit that changes its text is parsed and handed to `onEdit`
   * (which applies it), or, when it does not parse, to `onError` (the document stays).
   */
  watch(onEdit: (next: McpConfigDocument) => Promise<void>, onError: (error: Error) => void): void {
    if (this.watcher !== undefined) return;
    const path = this.document?.path;
    if (path === undefined) {
      throw new McpFleetError('config_path_missing', 'This fleet has no file to watch; load it with McpServerManager.fromFile, or save it first.');
    }
    this.watcher = new ConfigWatcher(
      path,
      async (raw) => {
        const current = this.document;
        const text = raw.replace(/^\uFEFF/, '');
        // Our own save, or a touch that changed nothing.
        if (current === undefined || text === current.text) return;
        let next: McpConfigDocument;
        try {
          next = this.reparse(text, current.path, current);
        } catch (error) {
          this.logger.warn({ path, error: (error as Error).message }, 'the edited MCP config could not be read; the fleet is unchanged');
          onError(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        this.document = next;
        await onEdit(next);
      },
      this.logger,
    );
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
