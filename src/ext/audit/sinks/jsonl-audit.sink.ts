import { open, type FileHandle } from 'node:fs/promises';
import type { AuditRecord } from '../audit-record';
import type { AuditSink } from './audit-sink';
import { recordJson } from '../audit-chain';

/**
 * Audit records as JSON lines: appended to a file (opened once, `a` mode, each batch one write),
 * or written to stdout without one. One process, one chain; a file appended to by successive runs
 * holds one chain per run.
 * @internal
 */
export class JsonLinesAuditSink implements AuditSink {
  private handle: Promise<FileHandle> | undefined;

  constructor(private readonly file: string | undefined) {}

  async write(records: readonly AuditRecord[]): Promise<void> {
    const text = `${records.map(recordJson).join('\n')}\n`;
    if (this.file === undefined) return this.toStdout(text);
    this.handle ??= open(this.file, 'a', 0o600);
    let handle: FileHandle;
    try {
      handle = await this.handle;
    } catch (error) {
      this.handle = undefined;
      throw error;
    }
    await handle.write(text);
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close();
  }

  private toStdout(text: string): Promise<void> {
    return new Promise((resolve, reject) =>
      process.stdout.write(text, (error) => (error ? reject(error) : resolve())),
    );
  }
}
