import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADAPTERS } from '../../../utils/bootstrap';
import { costDuring, type ServerCost } from '../../../utils/loop-delay';
import { rpcBody, rpcHeaders } from '../../../utils/mcp';
import { connectV1, SampleUser } from '../../../utils/session-clients';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
} from '../../../utils/sample-process';
import { forSuite } from '../../../utils/suite-resource';

// Red team IV, finding 2: 24 concurrent anonymous resources/read of three 4 MiB skill files raised
// the server's RSS by 580–800 MiB and stalled its event loop 0.2–2 s; a 4 MiB file of U+0001
// answered 24 MiB of JSON. The built sample app runs in a child process, so what it reports is the
// server's own.

const ADMIN_TOKEN = randomBytes(16).toString('hex');
const MiB = 1024 * 1024;
const CONCURRENT = 24;
/** The default `skills.maxInFlightReadBytesPerCaller`: what one caller may have in flight. */
const PER_CALLER_BYTES = 32 * MiB;

/** 4 MiB of markdown with what JSON escapes (quotes, backslashes, newlines) and multibyte UTF-8. */
function markdown(seed: string): Buffer {
  const line = Buffer.from(`${seed}: "quoted" \\ back-slashed, Ünïcödé ✓ — tab\there\n`);
  const text = Buffer.alloc(4 * MiB);
  for (let at = 0; at < text.length; at += line.length) line.copy(text, at);
  // Cut on a whole line, so the file stays valid UTF-8 (served as text).
  return text.subarray(0, text.lastIndexOf(0x0a) + 1);
}

/** The files served, by URI: three 4 MiB files (two text, one binary) and 4 MiB of U+0001. */
const FILES = new Map<string, Buffer>([
  ['skill://big/a.md', markdown('a')],
  ['skill://big/b.md', markdown('b')],
  ['skill://big/c.bin', randomBytes(4 * MiB)],
  ['skill://controls/ones.txt', Buffer.alloc(4 * MiB, 1)],
]);
const BIG = ['skill://big/a.md', 'skill://big/b.md', 'skill://big/c.bin'];
const ONES = 'skill://controls/ones.txt';

let folder: string;

beforeAll(async () => {
  await ensureSampleBuilt();
  folder = await mkdtemp(join(tmpdir(), 'skill-read-load-'));
  const manifest = (name: string) =>
    `---\nname: ${name}\ndescription: Large files.\n---\n\nLarge.\n`;
  for (const name of ['big', 'controls']) {
    await mkdir(join(folder, name));
    await writeFile(join(folder, name, 'SKILL.md'), manifest(name));
  }
  for (const [uri, bytes] of FILES)
    await writeFile(join(folder, uri.slice('skill://'.length)), bytes);
}, 180_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/**
 * One `resources/read` on a connection of its own; the answer's bytes as received. Its body is not
 * read before `reading` settles, so a large answer stays in flight (its response open) until then.
 */
function read(
  url: URL,
  uri: string,
  id: number,
  options: {
    reading?: Promise<void>;
    answered?: () => void;
    headers?: Record<string, string>;
  } = {},
): Promise<Buffer> {
  return new Promise((done, fail) => {
    const body = rpcBody('resources/read', { uri }, id);
    const request = httpRequest(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...rpcHeaders('resources/read', uri),
        ...options.headers,
        'Content-Length': Buffer.byteLength(body),
      },
    });
    request.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.pause();
      options.answered?.();
      void (options.reading ?? Promise.resolve()).then(() => {
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => done(Buffer.concat(chunks)));
        incoming.resume();
      });
      incoming.on('error', fail);
    });
    request.on('error', fail);
    request.end(body);
  });
}

type Answer =
  | { kind: 'served'; uri: string; digest: string }
  | { kind: 'refused'; error: { code: number; message: string; data?: unknown } };

/** What an answer says: the file it served (as the digest of its bytes), or its refusal. */
function answerOf(bytes: Buffer): Answer {
  const message = JSON.parse(bytes.toString('utf8')) as {
    result?: { contents: { uri: string; text?: string; blob?: string }[] };
    error?: { code: number; message: string; data?: unknown };
  };
  if (message.error) return { kind: 'refused', error: message.error };
  const [contents] = message.result?.contents ?? [];
  const served =
    contents.text !== undefined
      ? Buffer.from(contents.text, 'utf8')
      : Buffer.from(contents.blob ?? '', 'base64');
  return { kind: 'served', uri: contents.uri, digest: digestOf(served) };
}

function digestOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every answer served the file it names, byte for byte. */
function expectExact(answers: readonly Answer[]): void {
  for (const answer of answers)
    if (answer.kind === 'served')
      expect(answer.digest).toBe(digestOf(FILES.get(answer.uri) as Buffer));
}

/** The refusal of a read past the caller's share. */
const PAST_SHARE = {
  code: -32000,
  message: 'Server busy: too many skill file bytes in flight for this caller',
  data: { maxInFlightReadBytesPerCaller: PER_CALLER_BYTES, retryAfterMs: 1000 },
};

/**
 * What reading `uris` all at once cost the server, and what it answered. No body is read before
 * every read was answered (its first bytes arrived): the large answers are all in flight together.
 */
async function load(
  server: SampleProcess,
  uris: readonly string[],
): Promise<{ cost: ServerCost; answers: Answer[] }> {
  let bodies: Buffer[] = [];
  const cost = await costDuring(server, async () => {
    let answered = 0;
    let allAnswered!: () => void;
    const reading = new Promise<void>((done) => (allAnswered = done));
    const onAnswer = () => {
      if (++answered === uris.length) allAnswered();
    };
    bodies = await Promise.all(
      uris.map((uri, index) => read(server.url, uri, index, { reading, answered: onAnswer })),
    );
  });
  // Parsed once the window closed: the client's work is not the server's.
  return { cost, answers: bodies.map(answerOf) };
}

const most = (values: readonly number[]) => Math.max(...values);
const least = (values: readonly number[]) => Math.min(...values);
const MB = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/**
 * How much more a load of large reads may cost than the same reads of a small file: server CPU
 * and event-loop stall (the least of the rounds against the most of the baseline's: on a busy
 * machine a stall is mostly time the server waited for a core). Before the fix, each answer was
 * escaped on the loop: 24 reads cost 10–30 × the baseline's CPU (100 × for U+0001) and stalled the
 * loop 1–18 s; after it, an answer costs what a small one does.
 */
const CPU_FACTOR = 4;
const STALL_FACTOR = 10;
const ROUNDS = 3;
const PATHS = [
  ['fast path', {}],
  ['SDK path', { MCP_FAST_PATH: 'off' }],
] as const;

describe.each(ADAPTERS)('reading large skill files (%s)', (adapter) => {
  describe.each(PATHS)('on the %s', (path, env) => {
    const server = forSuite(
      () =>
        startSampleProcess(adapter, {
          MCP_ADMIN_TOKEN: ADMIN_TOKEN,
          MCP_SKILLS_DIR: folder,
          ...env,
        }),
      (opened) => opened.stop(),
      { timeoutMs: 60_000 },
    );

    it("24 concurrent reads of 4 MiB files: a caller's share in flight, the rest -32000, memory and loop as for small reads", async () => {
      for (const [uri, bytes] of FILES) {
        const [answer] = (await load(server, [uri])).answers;
        expect(answer).toEqual({ kind: 'served', uri, digest: digestOf(bytes) });
      }
      const small: ServerCost[] = [];
      const big: Awaited<ReturnType<typeof load>>[] = [];
      const ones: Awaited<ReturnType<typeof load>>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        small.push((await load(server, Array(CONCURRENT).fill('skill://big/SKILL.md'))).cost);
        big.push(
          await load(
            server,
            Array.from({ length: CONCURRENT }, (_, index) => BIG[index % BIG.length]),
          ),
        );
        ones.push(await load(server, Array(CONCURRENT).fill(ONES)));
      }
      const costs = (loads: { cost: ServerCost }[]) => loads.map(({ cost }) => cost);
      const served = (loads: { answers: Answer[] }[]) =>
        loads.map(({ answers }) => answers.filter((answer) => answer.kind === 'served').length);
      console.log(
        `${adapter}, ${path}: stall ms / CPU ms / peak RSS growth per round\n` +
          [
            ['24 × SKILL.md', small, undefined],
            ['24 × 4 MiB', costs(big), served(big)],
            ['24 × 4 MiB of U+0001', costs(ones), served(ones)],
          ]
            .map(
              ([name, rounds, count]) =>
                `  ${String(name)}: ${(rounds as ServerCost[])
                  .map(
                    (c) =>
                      `${c.stallMs.toFixed(0)}/${c.cpuMs.toFixed(0)}/${MB(c.peakRssGrowthBytes)}`,
                  )
                  .join(', ')}${count ? ` (served ${String(count)} of 24)` : ''}`,
            )
            .join('\n'),
      );

      for (const { answers } of [...big, ...ones]) {
        expectExact(answers);
        for (const answer of answers)
          if (answer.kind === 'refused') expect(answer.error).toEqual(PAST_SHARE);
      }
      // A 24 MiB answer fills the caller's 32 MiB share: one at a time; 4 MiB files several.
      expect(served(ones)).toEqual(Array(ROUNDS).fill(1));
      expect(served(big).every((count) => count >= 1 && count < CONCURRENT)).toBe(true);

      for (const rounds of [costs(big), costs(ones)]) {
        expect(most(rounds.map((c) => c.peakRssGrowthBytes))).toBeLessThanOrEqual(
          most(small.map((c) => c.peakRssGrowthBytes)) + PER_CALLER_BYTES,
        );
        expect(least(rounds.map((c) => c.cpuMs))).toBeLessThanOrEqual(
          CPU_FACTOR * most(small.map((c) => c.cpuMs)),
        );
        expect(least(rounds.map((c) => c.stallMs))).toBeLessThanOrEqual(
          STALL_FACTOR * most(small.map((c) => c.stallMs)),
        );
      }
    }, 300_000);

    it('another caller has a share of its own, and every caller together the total', async () => {
      const held = (headers: Record<string, string> = {}) => {
        let release!: () => void;
        const reading = new Promise<void>((done) => (release = done));
        let answered!: () => void;
        const started = new Promise<void>((done) => (answered = done));
        const body = read(server.url, ONES, 1, { reading, answered, headers });
        return { started, release, body };
      };
      // Anonymous holds a 24 MiB answer in flight (its body unread): its share is taken.
      const anonymous = held();
      await anonymous.started;
      expect(answerOf(await read(server.url, ONES, 2))).toEqual({
        kind: 'refused',
        error: PAST_SHARE,
      });
      // alice has a share of her own: 48 MiB in flight.
      const alice = held({ Authorization: 'Bearer alice' });
      await alice.started;
      // bob's would pass the 64 MiB of every caller together.
      expect(
        answerOf(await read(server.url, ONES, 3, { headers: { Authorization: 'Bearer bob' } })),
      ).toEqual({
        kind: 'refused',
        error: {
          code: -32000,
          message: 'Server busy: too many skill file bytes in flight',
          data: { maxInFlightReadBytes: 64 * MiB, retryAfterMs: 1000 },
        },
      });
      anonymous.release();
      alice.release();
      const answers = [answerOf(await anonymous.body), answerOf(await alice.body)];
      expect(answers.map((answer) => answer.kind)).toEqual(['served', 'served']);
      expectExact(answers);
      // Sent, they count no more.
      expectExact([answerOf(await read(server.url, ONES, 4))]);
      expect(
        answerOf(await read(server.url, ONES, 5, { headers: { Authorization: 'Bearer bob' } }))
          .kind,
      ).toBe('served');
    }, 60_000);

    it('a 2025-era session reads them byte for byte', async () => {
      const client = await connectV1(server.url, new SampleUser());
      try {
        for (const [uri, bytes] of FILES) {
          const { contents } = await client.readResource({ uri });
          const [entry] = contents as { uri: string; text?: string; blob?: string }[];
          const served =
            entry.text !== undefined
              ? Buffer.from(entry.text, 'utf8')
              : Buffer.from(entry.blob ?? '', 'base64');
          expect({ uri: entry.uri, digest: digestOf(served) }).toEqual({
            uri,
            digest: digestOf(bytes),
          });
        }
      } finally {
        await client.close();
      }
    }, 60_000);
  });
});
