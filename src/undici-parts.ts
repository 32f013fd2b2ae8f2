// The parts of undici plantstore uses, loaded without the package index. The index
// also loads fetch, WebSocket, caches, mocks and more: importing it costs about
// twice as much start-up time as what is loaded here. Every `plantstore delete`
// pays that, so it is worth three deep paths.
import api from 'undici/lib/api/index.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import type { Dispatcher } from 'undici';

// What undici's index does on load: dispatchers get request(), connect() and the
// rest. ProxyAgent itself calls connect() to open CONNECT tunnels for https.
Object.assign(DispatcherBase.prototype, api);

export { EnvHttpProxyAgent };

/** undici's request(), for an absolute URL, on a given dispatcher. */
export function request(
  url: string,
  options: { method: Dispatcher.HttpMethod; headers: Record<string, string>; signal: AbortSignal; dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { origin, pathname, search } = new URL(url);
  const { dispatcher, ...rest } = options;
  return dispatcher.request({ ...rest, origin, path: `${pathname}${search}` });
}
