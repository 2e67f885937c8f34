import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditEntry } from './audit-verdict';

/** What of a Redis client reading a stream takes (ioredis `Redis` or `Cluster`). @internal */
export interface StreamReader {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Stream entries read per `XRANGE`. */
const PAGE = 1_000;

/** The records of a JSON lines file, one per non-empty line, numbered by line. @internal */
export async function* auditFileEntries(path: string): AsyncGenerator<AuditEntry> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let position = 0;
  for await (const line of lines) {
    position++;
    if (line.trim() !== '') yield { position, text: line };
  }
}

/** The records of an audit stream (field `r`), in stream order, numbered from 1. @internal */
export async function* auditStreamEntries(
  redis: StreamReader,
  stream: string,
): AsyncGenerator<AuditEntry> {
  let start = '-';
  let position = 0;
  for (;;) {
    const page = (await redis.call('XRANGE', stream, start, '+', 'COUNT', PAGE)) as [
      string,
      string[],
    ][];
    for (const [id, fields] of page) {
      position++;
      const at = fields.indexOf('r');
      yield { position, id, text: at >= 0 && at % 2 === 0 ? String(fields[at + 1]) : '' };
    }
    if (page.length < PAGE) return;
    start = `(${page[page.length - 1][0]}`;
  }
}
