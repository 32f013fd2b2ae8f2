import type { Socket } from 'node:net';

/**
 * TLS alerts that end a connection after its handshake seemed done. Under TLS 1.3 a
 * server that requires a client certificate checks it only after the client thinks
 * the handshake is over; its "certificate required" alert then reaches the socket as
 * undici is already reporting the hang-up as "other side closed", and the reason is
 * lost. The dispatcher's connector records each socket's alert here, keyed by the
 * socket's local address and port, which undici's SocketError carries (`socket`).
 */
const alerts = new Map<string, Error>();

const key = (address: string | undefined, port: number | undefined): string => `${address}|${port}`;

/** Called by the connector for each TLS socket it opens. */
export function watchTlsAlerts(socket: Socket): void {
  const at = key(socket.localAddress, socket.localPort);
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code?.startsWith('ERR_SSL_')) alerts.set(at, error);
  });
  // Kept a little past the close: undici reports the failure as the socket closes.
  socket.once('close', () => setTimeout(() => alerts.delete(at), 1000).unref());
}

/** The TLS alert behind a connection undici says the server closed, if one came. */
export function tlsAlertBehind(error: unknown): Error | undefined {
  const info = (error as { code?: unknown; socket?: { localAddress?: string; localPort?: number } } | undefined) ?? undefined;
  if (info?.code !== 'UND_ERR_SOCKET' || info.socket === undefined) return undefined;
  const alert = alerts.get(key(info.socket.localAddress, info.socket.localPort));
  if (alert === undefined) return undefined;
  if (/CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE/.test((alert as NodeJS.ErrnoException).code ?? '')) {
    return Object.assign(new Error('the server requires a client certificate, which plantstore does not send'), {
      code: (alert as NodeJS.ErrnoException).code,
    });
  }
  return alert;
}
