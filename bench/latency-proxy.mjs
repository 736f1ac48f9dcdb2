// A TCP proxy that holds every chunk back `oneWayMs` in each direction: a round trip through it
// costs 2 × oneWayMs, as it does to a target across a network (a warehouse some milliseconds away).
import { connect, createServer } from "node:net";

/** Starts the proxy on a free port of 127.0.0.1; resolves `{ port, close() }`. */
export async function startLatencyProxy(targetHost, targetPort, oneWayMs) {
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const destroyBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true); // no Nagle: the only delay is the one added here
      socket.on("error", destroyBoth);
      socket.on("close", () => sockets.delete(socket));
    }
    forwardDelayed(client, upstream, oneWayMs);
    forwardDelayed(upstream, client, oneWayMs);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * Writes what `from` reads to `to`, each chunk at max(its arrival + ms, the previous chunk's time),
 * so the order holds; then ends `to` once `from` has ended or closed and the chunks before are out.
 */
function forwardDelayed(from, to, ms) {
  const queue = []; // { at, chunk }, `at` never decreasing; a null chunk ends `to`
  let last = 0;
  let timer;
  let ended = false;
  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && queue[0].at <= performance.now()) {
      const { chunk } = queue.shift();
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else if (!to.write(chunk)) from.pause(); // backpressure: read no more until `to` drains
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0].at - performance.now());
  };
  const push = (chunk) => {
    last = Math.max(performance.now() + ms, last);
    queue.push({ at: last, chunk });
    if (timer === undefined) timer = setTimeout(flush, last - performance.now());
  };
  const end = () => {
    if (ended) return;
    ended = true;
    push(null);
  };
  from.on("data", push);
  from.on("end", end);
  from.on("close", end);
  to.on("drain", () => from.resume());
}
