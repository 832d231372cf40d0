// A TCP proxy in front of a server (PostgreSQL, Kafka) for failure tests: it can turn its open connections into black
// holes (bytes dropped both ways, neither side closed, as a half-open connection looks to both ends; new connections
// still pass), or take the server away (open connections reset, new ones refused) and bring it back.
import net from 'node:net';

interface Pair {
  client: net.Socket;
  server: net.Socket;
  frozen: boolean;
}

export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private down = false;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private target: { host: string; port: number },
  ) {}

  /** A proxy to targetHost:targetPort on `listenPort` (default: a free one). */
  static async start(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = net.createServer((client) => proxy.accept(client, proxy.target.host, proxy.target.port));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', resolve);
    });
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port, { host: targetHost, port: targetPort });
    return proxy;
  }

  /** New connections go to `port` from now on (a rolling update's switch); open ones stay where they are. */
  retarget(port: number, host = '127.0.0.1'): void {
    this.target = { host, port };
  }

  /** Black-holes every connection open now. */
  freeze(): number {
    let n = 0;
    for (const p of this.pairs) if (!p.frozen) (p.frozen = true), n++;
    return n;
  }

  /** The server is unreachable from now on: open connections are reset, new ones closed at once (a database blip). */
  cut(): void {
    this.down = true;
    for (const p of this.pairs) if (!p.frozen) p.client.destroy(), p.server.destroy();
  }

  /** New connections pass again. */
  restore(): void {
    this.down = false;
  }

  /** `url` with its host:port replaced by the proxy's. */
  url(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  async close(): Promise<void> {
    for (const p of this.pairs) p.client.destroy(), p.server.destroy();
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, host: string, port: number): void {
    if (this.down) {
      client.on('error', () => undefined);
      client.destroy();
      return;
    }
    const server = net.connect(port, host);
    const pair: Pair = { client, server, frozen: false };
    this.pairs.add(pair);
    client.on('data', (d) => pair.frozen || server.write(d));
    server.on('data', (d) => pair.frozen || client.write(d));
    // A frozen pair never tells one side that the other went away.
    const closeBoth = () => {
      if (pair.frozen) return;
      client.destroy();
      server.destroy();
      this.pairs.delete(pair);
    };
    for (const s of [client, server]) {
      s.on('error', () => undefined);
      s.on('close', closeBoth);
    }
  }
}
