/**
 * The file behind a fleet: the loaded document, saving the registry into it (atomically,
 * one save at a time, templates unexpanded, without losing what another writer put there
 * meanwhile) and following it on disk.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { McpFleetError } from '../mcp/errors.js';
import { Mutex } from '../mcp/locks.js';
import type { McpLogger } from '../mcp/logger.js';
import { writeFileAtomic } from './atomic-write.js';
import { McpConfigDocument, parseMcpConfig } from './config-file.js';
import type { McpConfigDialect } from './dialects.js';
import { mergeServers } from './diff.js';
import type { McpFleetServerConfig } from './server-config.js';
import { ConfigWatcher } from './watch.js';

/** The text of a file, without a byte order mark; `undefined` when there is none. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export class FleetFile {
  /** Saves and reads of the file for a reload run one at a time, so neither mistakes the other's text. */
  private readonly lock = new Mutex();
  private watcher: ConfigWatcher | undefined;
  /** The registry as it was when registry and file last agreed (load, save, reload). */
  private synced: McpFleetServerConfig[];

  constructor(
    private document: McpConfigDocument | undefined,
    /** The dialect of a new file, when the fleet was built in code. */
    private readonly dialect: McpConfigDialect,
    private readonly workspaceFolder: () => string,
    /** The registry's servers now, as written. */
    private readonly registry: () => McpFleetServerConfig[],
    private readonly logger: McpLogger,
  ) {
    this.synced = document?.servers() ?? [];
  }

  /** The document as last loaded, saved or reloaded. */
  get current(): McpConfigDocument | undefined {
    return this.document;
  }

  /** Records that the registry now matches the file (after a reload was applied). */
  markSynced(): void {
    this.synced = this.registry();
  }

  /**
   * Writes the registry to `path` (default: the file's own path). To its own file, what
   * another writer changed since the last load or save is kept: the servers the registry
   * did not change are written as the file has them now (see `mergeServers`), and
   * everything outside the servers stays. Elsewhere, the registry is written as it is,
   * into that file's text when it exists. Saving to the file's own path (or the first
   * save of a fleet built in code) makes the result the current document.
   */
  async save(path?: string): Promise<void> {
    await this.lock.run(async () => {
      const target = path === undefined ? this.document?.path : resolve(path);
      if (target === undefined) {
        throw new McpFleetError('config_path_missing', 'This fleet was not loaded from a file; pass the path to save(path).');
      }
      const ours = this.registry();
      const own = this.document !== undefined && this.document.path === target;
      const onDisk = await readText(target);
      const base = this.baseFor(target, onDisk);
      // To its own file: the registry's changes since the last sync, over the file as it is now.
      const servers = own ? mergeServers(this.synced, ours, base.servers()) : ours;
      const text = base.render(servers);
      await writeFileAtomic(target, text);
      if (own || this.document === undefined) {
        this.document = this.reparse(text, target, base);
        this.synced = ours;
      }
    });
  }

  /** The document a save renders into: the file as it is on disk now, else the loaded one, else a new one. */
  private baseFor(target: string, onDisk: string | undefined): McpConfigDocument {
    const like = this.document;
    if (onDisk === undefined) return like?.path === target ? like : McpConfigDocument.create({ dialect: like?.dialect ?? this.dialect, path: target, workspaceFolder: this.workspaceFolder() });
    if (like?.path === target && onDisk === like.text) return like;
    try {
      return parseMcpConfig(onDisk, { path: target, ...(like === undefined ? {} : { dialect: like.dialect }), ...(like?.workspaceFolder === undefined ? {} : { workspaceFolder: like.workspaceFolder }) });
    } catch (error) {
      throw new McpFleetError(
        'config_conflict',
        `${target} changed on disk and cannot be read now, so it was not overwritten: ${(error as Error).message} Fix the file, or save elsewhere with save(path).`,
        { cause: error },
      );
    }
  }

  private reparse(text: string, path: string | undefined, like: McpConfigDocument): McpConfigDocument {
    return parseMcpConfig(text, { dialect: like.dialect, ...(path === undefined ? {} : { path }), ...(like.workspaceFolder === undefined ? {} : { workspaceFolder: like.workspaceFolder }) });
  }

  /**
   * Follows the file: each edit that changes its text is parsed and handed to `onEdit`
   * with the document before it (which applies the difference), or, when it does not
   * parse, to `onError` (the document stays). The file is read again under the save
   * lock, so a save in flight is never mistaken for an edit.
   */
  watch(onEdit: (previous: McpConfigDocument, next: McpConfigDocument) => Promise<void>, onError: (error: Error) => void): void {
    if (this.watcher !== undefined) return;
    const path = this.document?.path;
    if (path === undefined) {
      throw new McpFleetError('config_path_missing', 'This fleet has no file to watch; load it with McpServerManager.fromFile, or save it first.');
    }
    this.watcher = new ConfigWatcher(
      path,
      async () => {
        const edit = await this.lock.run(async () => {
          const previous = this.document;
          const text = await readText(path);
          // Our own save, a touch that changed nothing, or a file an editor is replacing.
          if (previous === undefined || text === undefined || text === previous.text) return undefined;
          try {
            const next = this.reparse(text, path, previous);
            this.document = next;
            return { previous, next };
          } catch (error) {
            this.logger.warn({ path, error: (error as Error).message }, 'the edited MCP config could not be read; the fleet is unchanged');
            onError(error instanceof Error ? error : new Error(String(error)));
            return undefined;
          }
        });
        if (edit === undefined) return;
        await onEdit(edit.previous, edit.next);
        this.markSynced();
      },
      this.logger,
    );
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
