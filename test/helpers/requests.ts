// What a request states about its answer, for tests of the transport: a DELETE as the delete
// command sends it (its 2xx body ignored), and a GET that reads its 2xx body.
import { ERROR_BODY_BYTES } from '../../src/http/outcome.js';

export const DELETE = { method: 'DELETE', successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES } as const;

/** A GET whose 2xx body is the answer, read whole up to `bodyLimitBytes`. */
export const get = (bodyLimitBytes: number) => ({ method: 'GET', successBody: 'read', bodyLimitBytes }) as const;
