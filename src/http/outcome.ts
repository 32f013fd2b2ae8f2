// What the HTTP layer hands back: data, never sentences. The command words it (with
// src/ui/transport-words.ts for what any command may meet); classify.ts says what each one means for the
// exit code and for trying again. Every string in here is already cleaned and masked
// (error-body.ts serverLine), so whoever prints it cannot leak the token.

/** Socket and connection failures, named by what went wrong rather than by Node's or undici's code. */
export type NetworkFailure =
  | 'refused'
  | 'reset'
  | 'closed-while-sending'
  | 'host-not-found'
  | 'lookup-failed'
  | 'host-unreachable'
  | 'network-unreachable'
  | 'closed'
  | 'proxy-closed'
  | 'short-body'
  | 'stream-refused'
  | 'stream-reset'
  | 'session-closed';

/** Where a timeout struck: while connecting, waiting for the answer, or reading its body. */
export type TimeoutPhase = 'connect' | 'answer' | 'body';

/** Where a request that got no complete answer was going. */
export interface Route {
  /** The base URL's host and port. */
  host: string;
  /** The proxy it went through, credentials hidden; absent when it went direct. */
  via?: string;
  /** The status of an answer whose head had arrived before the failure: its body was cut short. */
  status?: number;
}

/** One attempt that did not do what was asked. */
export type FailedAttempt =
  /** A complete answer with a failure status: the API's Error object (code and message) when the body was one. */
  | { kind: 'api-error'; status: number; code: number | null; message: string }
  /**
   * A success status whose body is a web page (HTML by its media type, or markup in a body
   * declared as plain text or not at all): a web site answered, not the API. `title` is the page's, if any.
   */
  | ({ kind: 'web-page'; status: number; title: string } & NotApiAnswer)
  /** A success status whose body is not what an API sends (api-answer.ts): nothing says it did what was asked. */
  | ({ kind: 'not-api'; status: number; body: NotApiBody } & NotApiAnswer)
  /**
   * A 2xx other than 204 to a request that confirms an earlier 2xx (HttpRequest.confirms): the
   * same answer twice, where the API answers a DELETE of a plant it has just deleted with "no such
   * plant". A catch-all answers anything 2xx; `first` is the status of the answer it confirms.
   */
  | ({ kind: 'success-again'; status: number; first: number } & NotApiAnswer)
  /** A success whose body the request reads went on past the request's limit (or could not be inflated whole). */
  | ({ kind: 'too-large'; status: number; limitBytes: number } & Route)
  /** A 3xx, not followed. `location` is absent when the server sent none, or a blank one. */
  | { kind: 'redirect'; status: number; location?: string }
  /** Our --timeout ran out, or the lower layers reported one. */
  | ({ kind: 'timeout'; ms: number; phase: TimeoutPhase } & Route)
  /** The connection broke while an answer's body was arriving. */
  | ({ kind: 'body-cut'; status: number; what: NetworkFailure } & Route)
  /**
   * `idleClose`: the server closed a reused keep-alive connection as the request went out on it,
   * before any byte of an answer (idle-reuse.ts): sent once more on another, whatever --retries says.
   * `plainHttp`: a new plain-http connection closed before any byte of an answer, which is what a
   * TLS server does with a request that is not TLS: the port may speak TLS.
   */
  | ({ kind: 'network'; what: NetworkFailure; idleClose?: true; plainHttp?: true } & Route)
  /** The proxy itself could not be reached. */
  | ({ kind: 'proxy-unreachable'; what: NetworkFailure; via: string } & Route)
  /** The proxy answered CONNECT with something other than 200. */
  | ({ kind: 'proxy-refused'; connectStatus: number; via: string } & Route)
  /**
   * The TLS handshake failed; `problem` says why, as far as Node's error tells (tls-problem.ts).
   * `reason` is the lower layer's own text (OpenSSL's, Node's advice and all), for a trace.
   * `caFile` names the CA bundle the run trusted besides the default store, when one was given.
   */
  | ({ kind: 'tls'; reason: string; caFile?: string } & TlsProblem & Route)
  | ({ kind: 'malformed'; headersTooLarge: boolean } & Route)
  /**
   * The server refused the request itself over HTTP/2 with ENHANCE_YOUR_CALM, on its stream or
   * with a GOAWAY: what nginx does with a header larger than it accepts (over HTTP/1.1 it answers
   * 400 "Request Header Or Cookie Too Large"). The same request would be refused again.
   */
  | ({ kind: 'request-too-large' } & Route)
  /** Plain http to a name that did not resolve to this machine: nothing was sent. */
  | ({ kind: 'not-loopback'; reason: string } & Route)
  /** Ctrl-C while the request was out. */
  | ({ kind: 'interrupted' } & Route)
  /** Anything else the lower layers threw; `reason` is their message, empty when they gave none. */
  | ({ kind: 'failed'; reason: string } & Route);

/** Why a TLS handshake failed, from Node's error code (and the certificate it carries). */
export type TlsProblem =
  /** What answered the ClientHello does not speak TLS (a plain-http server: OpenSSL's "wrong version number"). */
  | { problem: 'not-tls' }
  /**
   * A plain-http request answered by a server that says it wanted TLS on that port (nginx's
   * 400 "The plain HTTP request was sent to HTTPS port"; `reason` is its words).
   */
  | { problem: 'speaks-tls'; status: number }
  /**
   * A trusted certificate made out to other names: `names` are the DNS names and IP addresses
   * it holds (empty when Node gave none), `asked` the host of the base URL.
   */
  | { problem: 'altname'; names: string[]; asked: string }
  /** No CA the run trusts signed it: self-signed, or an issuer not in the store. */
  | { problem: 'untrusted' }
  /** Past its end date (`notAfter`, as the certificate says it, when known). */
  | { problem: 'expired'; notAfter?: string }
  /** Before its start date (`notBefore`, when known). */
  | { problem: 'not-yet-valid'; notBefore?: string }
  /** Anything else: `reason` is all there is. */
  | { problem: 'other' };

/**
 * An answer that is not the API's: a failing answer (the service away, a gateway's catch-all),
 * retried as uncertain, unless the request said it is `final` when it came (a base URL that has
 * never answered as the API in this run is more likely wrong than down: HttpRequest.notApiIsFinal).
 */
export interface NotApiAnswer {
  final?: true;
}

/** Why a 2xx body that is not a web page is still not an API's answer (api-answer.ts says which is which). */
export type NotApiBody =
  /** A media type that is neither JSON nor plain text, with a body; `more` when the body went on past what was read. */
  | { kind: 'media-type'; mediaType: string; bytes: number; more: boolean }
  /** Declared JSON (`mediaType`), but it does not parse. */
  | { kind: 'not-json'; mediaType: string }
  /** Not UTF-8 text: invalid UTF-8, or control characters (a NUL, UTF-16 without a byte-order mark). */
  | { kind: 'not-text' }
  /** A content coding that cannot be undone (unknown, or bytes that do not inflate): the body cannot be read. */
  | { kind: 'encoding'; encoding: string }
  /** Text not declared JSON that was not read whole (cut short, or past `limitBytes`): it cannot be checked. */
  | { kind: 'unchecked'; limitBytes: number; cut: boolean }
  /** Text longer than the one short line an acknowledgement is. */
  | { kind: 'text'; bytes: number };

/** Why attempts stopped before --retries ran out. */
export type Stop =
  | { kind: 'retry-after-too-long'; retryAfterMs: number; maxRetryWaitMs: number }
  /** The throttle gave up on the server; `reason` is its own account. */
  | { kind: 'gave-up'; reason: string }
  /** Ctrl-C, SIGTERM or SIGHUP came while the next attempt waited for a token: the last answer was not final. */
  | { kind: 'interrupted-awaiting-token' };

/** Enough for any Error object, and for the beginning of a web page's: what a request whose 2xx body is not read needs. */
export const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A request as the transport takes it: a method and a path under the base URL (`/plants/42`),
 * its body when it has one, and what its answer must carry.
 */
export interface HttpRequest {
  method: string;
  path: string;
  /** A JSON body (sent as application/json), for a request that carries one (PATCH, POST, PUT). */
  body?: string;
  /**
   * Whether an attempt whose answer may have been lost (a timeout, a reset once written, a 5xx)
   * may be sent again: a retry, or the resend after an idle connection's close. The caller's word,
   * which knows what the request does: a PATCH that sets a name is repeatable, one that appends is
   * not. Without it, HTTP's idempotent methods are (RFC 9110 §9.2.2: GET, PUT, DELETE...), others not.
   */
  repeatable?: boolean;
  /** What trace events name the request by (the plant id); the path when absent. */
  label?: string;
  /**
   * Whether the body of a 2xx is the answer. Either way a body no API sends (api-answer.ts: a
   * page, XML, text that is not UTF-8...) is a failing answer, and one cut short is a failure,
   * retried like a reset. 'ignored' (DELETE): past `bodyLimitBytes` it is judged on what was
   * read. 'read' (GET): one past it is a failure ('too-large').
   */
  successBody: 'ignored' | 'read';
  /**
   * This request confirms an earlier answer of this status (a 2xx other than 204): a 2xx other
   * than 204 to it is not success but the same answer twice ('success-again'); a 204 is success.
   */
  confirms?: number;
  /**
   * Asked when an answer that is not the API's comes (a page, a 2xx again): true makes it final,
   * not retried (the command's word: a base URL that has never answered as the API in this run
   * is more likely wrong than down). Without it, or false, it is retried as a failing answer.
   */
  notApiIsFinal?: () => boolean;
  /**
   * The most bytes of an answer's body read (after decompression). Past it an error body is
   * cut: its beginning says what went wrong (ERROR_BODY_BYTES is enough for that).
   */
  bodyLimitBytes: number;
}

/** Why a request was never sent: the user interrupted first, or the throttle had given up. */
export type NotSentReason =
  | { kind: 'interrupted' }
  | { kind: 'gave-up'; reason: string }
  /** The token command failed (its own words, which never hold its output). */
  | { kind: 'no-token'; message: string };

/** What became of one request, after every attempt. */
export type Outcome =
  /**
   * A 2xx whose body could be the API's; `body` is its text (masked), '' for a 204. Whole when
   * the request reads it; otherwise at most `bodyLimitBytes` of it. Only a 204 is the spec's
   * proof: whether another 2xx did what was asked is for the command to confirm.
   */
  | { kind: 'ok'; status: number; body: string }
  | {
      kind: 'failed';
      /** The last attempt's failure: what the user is told. */
      last: FailedAttempt;
      attempts: number;
      /**
       * An attempt before the last may have reached the server with its answer lost: a
       * "no such thing" now may mean that attempt did what was asked.
       */
      earlierAnswerLost: boolean;
      stopped?: Stop;
    }
  | { kind: 'not-sent'; reason: NotSentReason };

/** A step of a request, for a trace: data the command words (ui/trace.ts). Every string is already masked. */
export type TransportEvent =
  | {
      kind: 'attempt';
      label: string;
      number: number;
      /** The attempts still assured, this one included. */
      total: number;
      method: string;
      url: string;
      via?: string;
      /** What was sent, the token's value hidden. */
      headers: ReadonlyArray<readonly [string, string]>;
    }
  | { kind: 'answer'; label: string; status: number; elapsedMs: number; headers: ReadonlyArray<readonly [string, string]> }
  /** Interrupted while still connecting: nothing left this machine. */
  | { kind: 'not-sent'; label: string; elapsedMs: number }
  | { kind: 'failed'; label: string; elapsedMs: number; failure: FailedAttempt }
  | { kind: 'retrying'; label: string; delayMs: number; retryAfter: boolean; failure: FailedAttempt };
