/**
 * Which library files one call runs: starts a bench server (bench/servers/nestjs-mcp.ts, variant
 * BENCH_VARIANT, default `sealed`) twice under V8 coverage (NODE_V8_COVERAGE), sends the same
 * calls to both except one extra call to the second, and lists the `src/` files whose functions
 * ran more often in the second: the files that call ran, by folder. For the sealed variant the
 * call is round 2 of the flow (answer + sealed state).
 *
 * Run: npm run bench:path            (this checkout)
 *      BENCH_BEFORE=<checkout> npm run bench:path   (another checkout, with its own node_modules)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TREE = process.env.BENCH_BEFORE ?? join(__dirname, '..');
const VARIANT = process.env.BENCH_VARIANT ?? 'sealed';
const WARM_CALLS = 20;
const ANSWER = { confirm: { action: 'accept', content: { ok: true } } };

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

function post(port: number, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
          authorization: 'Bearer bench',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function callBody(id: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hello, bench' },
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  });
}

/** Function call counts of `src/` files after `calls` calls, from one server process. */
async function countsAfter(calls: number): Promise<Map<string, number[]>> {
  const coverage = mkdtempSync(join(tmpdir(), 'call-path-'));
  const child = fork(join(TREE, 'bench', 'servers', 'nestjs-mcp.ts'), [], {
    cwd: TREE,
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: {
      ...process.env,
      TS_NODE_PROJECT: 'tsconfig.json',
      BENCH_VARIANT: VARIANT,
      NODE_V8_COVERAGE: coverage,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve) =>
      child.on('message', (message: { type: string; port?: number }) => {
        if (message.type === 'ready') resolve(message.port as number);
      }),
    );
    let extra: Record<string, unknown> = {};
    if (VARIANT === 'sealed') {
      const first = JSON.parse(await post(port, callBody(1))) as {
        result?: { requestState?: string };
      };
      extra = { inputResponses: ANSWER, requestState: first.result?.requestState };
    }
    for (let i = 0; i < calls; i++) await post(port, callBody(100 + i, extra));
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'exit' });
    });
    const counts = new Map<string, number[]>();
    for (const file of readdirSync(coverage)) {
      const { result } = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as {
        result: ScriptCoverage[];
      };
      for (const script of result) {
        if (!script.url.startsWith('file:')) continue;
        const path = relative(TREE, fileURLToPath(script.url)).split(sep).join('/');
        if (!path.startsWith('src/')) continue;
        counts.set(
          path,
          script.functions.map((fn) => fn.ranges[0]?.count ?? 0),
        );
      }
    }
    return counts;
  } finally {
    child.kill();
    rmSync(coverage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const before = await countsAfter(WARM_CALLS);
  const after = await countsAfter(WARM_CALLS + 1);
  const ran = [...after]
    .filter(([path, counts]) => {
      const base = before.get(path) ?? [];
      return counts.some((count, index) => count > (base[index] ?? 0));
    })
    .map(([path]) => path)
    .sort();
  const folders = new Map<string, string[]>();
  for (const path of ran) {
    const parts = path.split('/');
    const folder = parts.length > 2 ? parts[1] : '(root)';
    folders.set(folder, [
      ...(folders.get(folder) ?? []),
      parts.slice(parts.length > 2 ? 2 : 1).join('/'),
    ]);
  }
  console.log(`One ${VARIANT} call ran ${ran.length} files of src/ in ${folders.size} folders:`);
  for (const [folder, files] of folders)
    console.log(`  ${folder} (${files.length}): ${files.join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
