import net from "node:net";

/**
 * A TCP proxy in front of a server, to take the network away from a client without touching the server (which other
 * test files share): `cut` is a crash or a stop (every connection closes, new ones are refused), `stall` is a network
 * that swallows packets (connections open but nothing ever comes back).
 */
export interface TcpProxy {
  port: number;
  /** Closes every connection and refuses new ones (ECONNREFUSED) until `restore`. */
  cut(): Promise<void>;
  /** Accepts connections again, and forwards normally (after a `stall`, drops the stalled connections first). */
  restore(): Promise<void>;
  /** From now on forwards nothing, in either direction, on old and new connections. */
  stall(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = net.createServer((inbound) => {
    track(inbound);
    const outbound = net.connect(target.port, target.host);
    track(outbound);
    inbound.on("data", (chunk) => stalled || outbound.write(chunk));
    outbound.on("data", (chunk) => stalled || inbound.write(chunk));
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

  return {
    port,
    async cut() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
    async restore() {
      if (stalled) dropAll();
      stalled = false;
      if (!server.listening) await listen(port);
    },
    stall() {
      stalled = true;
    },
    async close() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
