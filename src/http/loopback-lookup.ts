import dns, { type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isLoopbackAddress } from '../config/base-url.js';
import { NOT_LOOPBACK } from './classify.js';

export { NOT_LOOPBACK };

/**
 * A resolver for connections that may carry the token in clear text to
 * `localhost`: it keeps only loopback addresses of the answer, and fails the
 * connection when there are none, so a hosts file or resolver that maps
 * `localhost` elsewhere never receives the request.
 */
export const loopbackOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const loopback = addresses.filter((entry) => isLoopbackAddress(entry.address));
    const first = loopback[0];
    if (first === undefined) {
      const refused = Object.assign(
        new Error(`${hostname} resolved to ${addresses.map((entry) => entry.address).join(', ') || 'nothing'}, not to this machine`),
        { code: NOT_LOOPBACK },
      );
      return callback(refused, '', 0);
    }
    // net.connect asks for every address when it may try both families (autoSelectFamily).
    if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, loopback);
    else callback(null, first.address, first.family);
  });
};
