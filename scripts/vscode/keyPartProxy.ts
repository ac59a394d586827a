/**
 * A front for VS Code's own server that adds the one route the workbench needs to keep secrets: `POST /mint-key`.
 * The browser workbench encrypts the secret storage (API keys) in its localStorage with a key made of a random half
 * of its own and a half the server hands out at `<page path>/mint-key`; VS Code's open-source server has no such
 * route (405), so the workbench falls back to keeping secrets in memory and a reload loses them. code-server's
 * wrapper answers it with 32 random bytes kept for the server's life; this does the same and passes every other
 * request and WebSocket upgrade through unchanged.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface KeyPartProxy {
  close(): Promise<void>;
}

/** Listens on host:port and forwards to host:target, answering POST …/mint-key itself. */
export function startKeyPartProxy(host: string, port: number, target: number): Promise<KeyPartProxy> {
  const keyPart = randomBytes(32);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && (req.url ?? '').split('?')[0]!.endsWith('/mint-key')) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': keyPart.length });
      res.end(keyPart);
      return;
    }
    const upstream = request({ host, port: target, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const up = connect(target, host, () => {
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    const end = (): void => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', end);
    socket.on('error', end);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
