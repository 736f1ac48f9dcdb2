import type * as Pg from "pg";

type Driver = typeof Pg.default;

/** What sqlload relies on of pg's Connection (pg 8.23, pinned; `test/prefer-tls.integration.test.ts` guards it). */
interface ConnectionInternals {
  stream: NodeJS.EventEmitter;
  ssl: unknown;
  sslNegotiation?: string;
  connect(port: number | string, host?: string): void;
  attachListeners(stream: NodeJS.EventEmitter): void;
  emit(event: string): boolean;
}

const clients = new WeakMap<Driver, typeof Pg.Client>();

/**
 * pg's Client with libpq's `sslmode=prefer` in one connection: it asks for TLS, and where the
 * server answers that it has none (`N`) it goes on in plain text on the same socket. pg itself
 * fails the connection there, so the connector connected a second time to every server without
 * TLS, on every run (another backend started, and across a network two more round trips).
 *
 * pg's `Connection.connect` reads the server's answer with one `once("data")` listener, which this
 * takes over for `N` only; `attachListeners` starts the protocol reader on the socket, and
 * `sslconnect` makes the client send its startup message. `S` and anything else go to pg's own
 * listener, unchanged.
 */
export function preferringClient(pg: Driver): typeof Pg.Client {
  let client = clients.get(pg);
  if (client) return client;
  const Connection = pg.Connection as unknown as new (...args: unknown[]) => ConnectionInternals;
  class PreferConnection extends Connection {
    override connect(port: number | string, host?: string): void {
      super.connect(port, host);
      if (!this.ssl || this.sslNegotiation === "direct") return;
      const stream = this.stream;
      const answer = stream.listeners("data").at(-1) as ((buffer: Buffer) => void) | undefined;
      if (!answer) return;
      stream.removeListener("data", answer);
      stream.once("data", (buffer: Buffer) => {
        if (buffer.length !== 1 || buffer[0] !== 0x4e) return answer.call(stream, buffer);
        this.ssl = false;
        this.attachListeners(stream);
        this.emit("sslconnect");
      });
    }
  }
  client = class PreferClient extends pg.Client {
    constructor(config?: string | Pg.ClientConfig) {
      super(config);
      const self = this as unknown as { connection: object };
      Object.setPrototypeOf(self.connection, PreferConnection.prototype);
    }
  };
  clients.set(pg, client);
  return client;
}
