// The parts of undici plantstore uses, loaded without the package index. The index
// also loads fetch, WebSocket, caches, mocks and more: importing it costs about
// twice as much start-up time as what is loaded here. Every `plantstore delete`
// pays that, so it is worth a few deep paths. Those paths, and the internal symbol
// kHTTPContext, are not undici's public API: package.json pins undici to one exact version,
// and an upgrade is a deliberate change, checked by the test/http suite.
import connect from 'undici/lib/api/api-connect.js';
import buildConnector from 'undici/lib/core/connect.js';
import symbols from 'undici/lib/core/symbols.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';

// What undici's index does on load, for the one method plantstore's dispatchers need:
// ProxyAgent calls connect() to open CONNECT tunnels for https. Requests themselves go
// through dispatch() (exchange.ts), so request(), stream() and the rest (and the Readable
// bodies they bring) are not loaded.
Object.assign(DispatcherBase.prototype, { connect });

/** Where a Client keeps its connection's protocol handler ({ version: 'h1' | 'h2', ... }); see dispatcher.ts. */
const { kHTTPContext } = symbols;

export { buildConnector, kHTTPContext, Pool, ProxyAgent };
