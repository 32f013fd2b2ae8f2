// Types for the undici modules plantstore loads directly instead of the package
// index (see undici-parts.ts). They are the same objects the index exports.
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import { ProxyAgent } from 'undici';
  export default ProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

declare module 'undici/lib/api/api-connect.js' {
  /** Dispatcher.prototype.connect, as the index puts it there. */
  const connect: (...args: unknown[]) => unknown;
  export default connect;
}

declare module 'undici/lib/core/symbols.js' {
  /** undici's internal symbols; plantstore reads one (dispatcher.ts). */
  const symbols: { readonly kHTTPContext: unique symbol };
  export default symbols;
}

declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export default buildConnector;
}
