// Test support: a TCP proxy in front of the real PostgreSQL, so a test can make the database go
// away (stop: refuse connections, cut the live ones), stop answering (stall: hold every byte) and
// come back, without touching the server other tests use.
import net from 'node:net';

interface Pair {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  readonly toUpstream: Buffer[];
  readonly toClient: Buffer[];
}

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly pairs = new Set<Pair>();
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens (again) on the same port; 0 picks one the first time. */
  async start(): Promise<number> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(this.port, '127.0.0.1', () => done());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** The database goes away: new connections are refused, live ones are cut. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.pairs.clear();
    if (server) await new Promise<void>((done) => server.close(() => done()));
  }

  /** The database stops answering: bytes are held both ways (until {@link resume}). */
  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const p of this.pairs) {
      for (const b of p.toUpstream.splice(0)) p.upstream.write(b);
      for (const b of p.toClient.splice(0)) p.client.write(b);
    }
  }

  /** The local ports of the proxy's server-side connections (the server sees them as client_port). */
  upstreamPorts(): number[] {
    return [...this.pairs].map((p) => p.upstream.localPort).filter((n): n is number => typeof n === 'number');
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [] };
    this.pairs.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('data', (d) => (this.stalled ? pair.toUpstream.push(d) : upstream.write(d)));
    upstream.on('data', (d) => (this.stalled ? pair.toClient.push(d) : client.write(d)));
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }
}
