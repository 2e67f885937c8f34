import { watch, type FSWatcher } from 'node:fs';
import { Logger } from '@nestjs/common';
import { quoted } from '../../kit/quoted';

/** How long the folder must be quiet before it is read again: an editor's save is several events. */
const SETTLE_MS = 250;

/**
 * Watches a skills folder (recursively) and calls `reload` once changes settle, one reload at a
 * time; a failed reload is logged by `reload` itself and the watch goes on. For development.
 * @internal
 */
export class SkillFolderWatch {
  private readonly logger = new Logger('McpModule');
  private readonly watcher: FSWatcher;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    folder: string,
    private readonly reload: () => Promise<void>,
  ) {
    this.watcher = watch(folder, { recursive: true }, () => this.changed());
    this.watcher.on('error', (error) =>
      this.logger.warn(`The skills folder is no longer watched: ${quoted(error.message)}`),
    );
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher.close();
  }

  private changed(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.running.then(this.reload, this.reload);
    }, SETTLE_MS);
    this.timer.unref();
  }
}
