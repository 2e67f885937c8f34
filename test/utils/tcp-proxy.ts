import { connect, createServer, type Server, type Socket } from 'node:net';

/** Which way bytes go: `up` from the client to the server, `down` back. */
export type ProxyDirection = 'up' | 'down';

/** What the proxy does with a direction's bytes: pass them, or hold them until released. */
export type ProxyMode = 'pass' | 'hold';

/** One proxied connection: the client's socket and the one to the server. */
interface Link {
  readonly client: Socket;
  readonly server: Socket;
}

/**
 * A TCP proxy on 127.0.0.1 between a client (an app's Redis connection) and a server, that can
 * break the round trip where a test says: hold the bytes of one direction (a command sent but not
 * yet at the server, or applied but its reply not back), release them late, cut every connection
 * (what was held is lost with it), or refuse new connections (the server unreachable).
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private readonly held: Record<ProxyDirection, { link: Link; chunk: Buffer }[]> = {
    up: [],
    down: [],
  };
  private readonly modes: Record<ProxyDirection, ProxyMode> = { up: 'pass', down: 'pass' };
  private refusing = false;
  private server: Server | undefined;
  /** Bytes that reached the server, so a test can wait for a command to be on its way. */
  bytesUp = 0;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** From now on, `direction`'s bytes are passed (after any held ones) or held. */
  set(direction: ProxyDirection, mode: ProxyMode): void {
    this.modes[direction] = mode;
    if (mode === 'pass') this.release(direction);
  }

  /** Sends on what `direction` held, in order, on the connections still open. */
  release(direction: ProxyDirection): void {
    for (const { link, chunk } of this.held[direction].splice(0))
      if (this.links.has(link)) this.write(link, direction, chunk);
  }

  /** Destroys every connection; held bytes are lost with them. */
  cut(): void {
    for (const link of this.links) {
      link.client.destroy();
      link.server.destroy();
    }
    this.links.clear();
    this.held.up.length = 0;
    this.held.down.length = 0;
  }

  /** Refuses (destroys at once) new connections while `refusing`, as a server that is gone. */
  refuse(refusing: boolean): void {
    this.refusing = refusing;
  }

  /** Passes everything again and accepts connections. */
  heal(): void {
    this.refuse(false);
    this.set('up', 'pass');
    this.set('down', 'pass');
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const server = connect(this.targetPort, this.targetHost);
    const link: Link = { client, server };
    this.links.add(link);
    const end = () => {
      this.links.delete(link);
      client.destroy();
      server.destroy();
    };
    client.on('data', (chunk) => this.carry(link, 'up', chunk));
    server.on('data', (chunk) => this.carry(link, 'down', chunk));
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }

  private carry(link: Link, direction: ProxyDirection, chunk: Buffer): void {
    if (this.modes[direction] === 'hold') this.held[direction].push({ link, chunk });
    else this.write(link, direction, chunk);
  }

  private write(link: Link, direction: ProxyDirection, chunk: Buffer): void {
    if (direction === 'up') {
      this.bytesUp += chunk.length;
      link.server.write(chunk);
    } else link.client.write(chunk);
  }
}
