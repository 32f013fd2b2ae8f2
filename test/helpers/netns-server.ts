// One server or proxy on "another host": run by netns.ts inside a network namespace, as
// `netns-server.ts ROLE ADDRESS OPTIONS-JSON`, listening on ADDRESS (the namespace's side of
// the veth pair). Its first stdout line is {"port"}; then it answers each line on stdin with
// what it has seen so far, {"requests", "connections"}, one JSON line. It records a request
// before answering it, so a snapshot taken after the client is done holds all it was sent.
// When stdin ends (the test process went away), it exits.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { startHttpsServer } from './certificates.js';
import { startForwardProxy } from './forward-proxy.js';

interface Running {
  port: number;
  requests: unknown[];
  connections: number;
}

const [role, host = '', json = '{}'] = process.argv.slice(2);
const options = JSON.parse(json) as { refuseConnect?: number; certFile?: string; keyFile?: string };

async function start(): Promise<Running> {
  switch (role) {
    case 'proxy': {
      const proxy = await startForwardProxy({ ...options, host });
      return { port: proxy.port, requests: proxy.requests, connections: Number.NaN }; // JSON null: the proxy does not count them
    }
    case 'https': {
      const server = await startHttpsServer(
        readFileSync(options.certFile ?? '', 'utf8'),
        readFileSync(options.keyFile ?? '', 'utf8'),
        host,
      );
      return {
        port: server.port,
        get requests() {
          return server.requests;
        },
        get connections() {
          return server.connections;
        },
      };
    }
    case 'http':
      return startPlainServer();
    default:
      throw new Error(`unknown role ${role}: proxy, https or http`);
  }
}

async function startPlainServer(): Promise<Running> {
  const running: Running = { port: 0, requests: [], connections: 0 };
  const server = http.createServer((req, res) => {
    running.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(204).end();
  });
  server.on('connection', (_socket: Socket) => (running.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  running.port = (server.address() as AddressInfo).port;
  return running;
}

const running = await start();
process.stdout.write(`${JSON.stringify({ port: running.port })}\n`);
const questions = createInterface({ input: process.stdin });
questions.on('line', () => process.stdout.write(`${JSON.stringify({ requests: running.requests, connections: running.connections })}\n`));
questions.on('close', () => process.exit(0));
