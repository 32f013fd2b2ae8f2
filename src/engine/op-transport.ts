// The transport as an operation's `send` gets it: every request carries the operation's word on
// whether it may be sent again after a lost answer (Operation.repeatable), unless the request
// says otherwise itself. The HTTP layer would otherwise decide by the method alone.

import type { Transport } from '../http/transport.js';

export function transportFor(transport: Transport, repeatable: boolean): Transport {
  return {
    send: (request, interrupt) => transport.send(request.repeatable === undefined ? { ...request, repeatable } : request, interrupt),
    close: () => transport.close(),
  };
}
