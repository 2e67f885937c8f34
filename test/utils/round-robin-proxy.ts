import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** A balancer in front of a fleet, as a Kubernetes Service or a cloud load balancer is. */
export interface RoundRobinProxy {
  readonly url: URL;
  /** Adds a backend (`http://127.0.0.1:port`); it gets requests once its readiness answers 200. */
  add(origin: string): void;
  /** Stops sending to a backend and stops probing it. */
  remove(origin: string): void;
  /** Whether the proxy sends requests to `origin` now. */
  routesTo(origin: string): boolean;
  /** Every status `origin`'s readiness probe answered, in order of first sight. */
  readinessSeen(origin: string): number[];
  /** Requests the proxy could not deliver or whose answer it lost (answered 502). */
  readonly lost: readonly string[];
  /** Answers cut after they began: the backend's connection ended in the middle of the body. */
  readonly cut: readonly string[];
  /**
   * The requests `origin` holds now (sent, their answer not yet ended), each named by its
   * `Mcp-Name` header (a tool's name), or its method and path, with how long ago it was sent.
   */
  inFlight(origin: string): { name: string; sentMsAgo: number }[];
  /** Requests retried on another backend because one refused the connection (nothing was sent). */
  readonly retriedRefusals: number;
  close(): Promise<void>;
}

/**
 * A round-robin HTTP proxy with no affinity: each request goes to the next backend whose
 * `GET /health/ready` last answered 200 (probed every `probeEveryMs`), over pooled keep-alive
 * connections. A refused connection is retried on the next backend (nothing reached the first);
 * anything else that loses a request — a reset, a connection closed before the answer — is
 * answered 502 and counted in {@link RoundRobinProxy.lost}, since the client cannot know whether it
 * ran; an answer whose body the backend cut is counted in {@link RoundRobinProxy.cut}.
 */
export async function startRoundRobinProxy(probeEveryMs = 50): Promise<RoundRobinProxy> {
  // Idle connections are dropped before the backend's own keep-alive timeout (Node's 5 s), as a
  // well-configured proxy does, so that a backend closing an idle one never races a reuse.
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  const backends = new Map<string, { ready: boolean; timer: NodeJS.Timeout; lastProbe: string }>();
  const lost: string[] = [];
  const cut: string[] = [];
  const held = new Map<string, Set<{ name: string; sentAt: number }>>();
  const seen = new Map<string, Set<number>>();
  let retriedRefusals = 0;
  let next = 0;

  const probe = (origin: string) => {
    const backend = backends.get(origin);
    if (!backend) return;
    let timedOut = false;
    const probing = request(new URL('/health/ready', origin), { agent: false }, (response) => {
      response.resume();
      const entry = backends.get(origin);
      if (entry) {
        entry.ready = response.statusCode === 200;
        entry.lastProbe = String(response.statusCode);
      }
      if (!seen.has(origin)) seen.set(origin, new Set());
      seen.get(origin)?.add(response.statusCode ?? 0);
    });
    probing.on('error', (error: NodeJS.ErrnoException) => {
      const entry = backends.get(origin);
      if (!entry) return;
      entry.lastProbe = timedOut ? 'timed out' : (error.code ?? error.message);
      // A probe that only timed out says nothing of the backend: this proxy shares its process
      // with the clients, which a loaded machine slows first. A refused connection or a reset
      // counts at once, as a 503 does.
      if (!timedOut) entry.ready = false;
    });
    probing.setTimeout(probeEveryMs * 4, () => {
      timedOut = true;
      probing.destroy();
    });
    probing.end();
  };

  const readyOrigins = () => [...backends].filter(([, state]) => state.ready).map(([at]) => at);

  const forward = (
    incoming: IncomingMessage,
    body: Buffer,
    answer: (status: number, headers: IncomingMessage['headers'], payload: IncomingMessage) => void,
    fail: (why: string) => void,
    attempt = 0,
  ) => {
    const ready = readyOrigins();
    if (ready.length === 0)
      return fail(
        `no ready backend (last probes: ${[...backends].map(([at, state]) => `${at} ${state.lastProbe}`).join(', ')})`,
      );
    const origin = ready[next++ % ready.length];
    const holding = {
      name: String(incoming.headers['mcp-name'] ?? `${incoming.method} ${incoming.url}`),
      sentAt: performance.now(),
    };
    if (!held.has(origin)) held.set(origin, new Set());
    held.get(origin)?.add(holding);
    const release = () => held.get(origin)?.delete(holding);
    const outgoing = request(
      new URL(incoming.url ?? '/', origin),
      {
        method: incoming.method,
        headers: { ...incoming.headers, connection: 'keep-alive' },
        agent,
      },
      (response) => {
        response.once('close', release);
        answer(response.statusCode ?? 502, response.headers, response);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      release();
      if (error.code === 'ECONNREFUSED' && attempt < 5) {
        retriedRefusals++;
        return forward(incoming, body, answer, fail, attempt + 1);
      }
      fail(`${error.code ?? error.message} from ${origin}`);
    });
    outgoing.end(body);
  };

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      let answered = false;
      forward(
        incoming,
        Buffer.concat(chunks),
        (status, headers, payload) => {
          answered = true;
          const { connection: _dropped, ...passed } = headers;
          outgoing.writeHead(status, passed);
          payload.pipe(outgoing);
          payload.on('error', (error: NodeJS.ErrnoException) => {
            cut.push(`${incoming.method} ${incoming.url}: ${error.code ?? error.message}`);
            outgoing.destroy();
          });
        },
        (why) => {
          if (answered) return;
          lost.push(`${incoming.method} ${incoming.url}: ${why}`);
          outgoing.writeHead(502, { 'content-type': 'text/plain' });
          outgoing.end(why);
        },
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;

  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    add(origin) {
      if (backends.has(origin)) return;
      const timer = setInterval(() => probe(origin), probeEveryMs);
      backends.set(origin, { ready: false, timer, lastProbe: 'none' });
      probe(origin);
    },
    remove(origin) {
      const backend = backends.get(origin);
      if (!backend) return;
      clearInterval(backend.timer);
      backends.delete(origin);
    },
    routesTo: (origin) => backends.get(origin)?.ready === true,
    readinessSeen: (origin) => [...(seen.get(origin) ?? [])],
    lost,
    cut,
    inFlight: (origin) =>
      [...(held.get(origin) ?? [])].map(({ name, sentAt }) => ({
        name,
        sentMsAgo: performance.now() - sentAt,
      })),
    get retriedRefusals() {
      return retriedRefusals;
    },
    async close() {
      for (const { timer } of backends.values()) clearInterval(timer);
      backends.clear();
      agent.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
