import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the server received it (body read in full). */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Which connection it came on (1 for the server's first socket, …). */
  readonly socket: number;
}

/** What a handler is given: the request, its response, and the number of requests to this path so far (1 for the first). */
export type Handler = (request: Received, res: ServerResponse, nth: number) => void;

/** A real `node:http` server on 127.0.0.1 (port 0) for one test file. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request received, in order. */
  readonly received: Received[];
  /** Requests received on `path`. */
  hits(path: string): number;
  /** Connections opened so far, and those still open. */
  readonly connections: { readonly opened: number; readonly open: number };
  /** Replaces the handler (between tests). */
  handle(handler: Handler): void;
  /** Forgets what was received. */
  reset(): void;
  /** Closes every connection and the server. */
  close(): Promise<void>;
}

export async function startServer(handler: Handler = (_, res) => res.end()): Promise<TestServer> {
  let current = handler;
  const received: Received[] = [];
  const open = new Set<Socket>();
  const ids = new WeakMap<Socket, number>();
  let opened = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socket: ids.get(req.socket) ?? 0,
      };
      received.push(request);
      current(request, res, received.filter((r) => r.path === request.path).length);
    });
  });
  server.on('connection', (socket: Socket) => {
    ids.set(socket, ++opened);
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    hits: (path) => received.filter((r) => r.path === path).length,
    get connections() {
      return { opened, open: open.size };
    },
    handle: (h) => {
      current = h;
    },
    reset: () => {
      received.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Resolves on the next `type` event of `on`'s emitter (a retry's `retry`, …). */
export function nextEvent<E>(subscribe: (listener: (event: E) => void) => () => void): Promise<E> {
  return new Promise((resolve) => {
    const off = subscribe((event) => {
      off();
      resolve(event);
    });
  });
}
