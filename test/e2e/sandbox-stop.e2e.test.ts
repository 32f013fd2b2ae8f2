// `plantstore sandbox` stops on SIGTERM or Ctrl-C even while a client holds a request it
// will never finish (Node's server.close() alone waits for it: a minute or more). Loopback
// only; the test timeout is the only bound.
import { once } from 'node:events';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

it.each(['SIGTERM', 'SIGINT'] as const)('%s stops the sandbox while a client holds half a request', async (signal) => {
  const sandbox = await startSandboxProcess();
  const { hostname, port } = new URL(sandbox.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {}); // the sandbox may reset it; 'close' is what we wait for
  await once(socket, 'connect');
  socket.write(`DELETE /plants/1 HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer sandbox-`);
  // Nothing answers half a header; a whole request on another connection, answered, shows the
  // sandbox went through its event loop after those bytes had arrived.
  const probe = await fetch(`${sandbox.url}/plants/2`, { method: 'DELETE', headers: { Authorization: 'Bearer sandbox-token' } });
  await probe.arrayBuffer();
  expect(probe.status).toBe(204);
  const closed = once(socket, 'close');

  const stopped = await sandbox.stop(signal);
  expect(stopped.code).toBe(0);
  expect(stopped.stderr).toMatch(/\nsandbox stopped\n$/);
  await closed;
});
