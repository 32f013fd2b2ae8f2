// The token must never come back out: not in results, errors, traces or JSON, whatever
// a server echoes back and whatever a lower layer puts in its messages. One distinctive
// token, every kind of run, and a search of all each run printed (ignoring case, since
// hosts and some layers fold it). Only `auth token` prints it, and then exactly it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, it } from 'vitest';
import { createCa, type HttpsServer, issue, OPENSSL, startHttpsServer } from '../helpers/certificates.js';
import { answer, type HostileServer, modes, type Script, startHostileServer, writeHead } from '../helpers/hostile-server.js';
import { createOtherHost, type OtherHost } from '../helpers/netns.js';
import { closedPort } from '../helpers/scripted-server.js';
import { runTimed, type TimedResult } from '../helpers/timed.js';

// Letters, digits and '-': a valid bearer token, and a valid DNS label for the certificate case.
const TOKEN = 'LeakCanary-7f3a9C2e1B5d4a6F8e0c';

let work: string;
let configDir: string;
let tokenFile: string;
let echo: HostileServer;
let refusedPort: number;
let tls: { server: HttpsServer; caFile: string } | undefined;
/** Another host (a network namespace): its port 9 plays a proxy there, refusing connections. */
let other: OtherHost;

/** Answers each plant id with a different way of handing the Authorization header back. */
const echoScript: Script = (exchange) => {
  const sent = exchange.headers['authorization'] ?? '(none)';
  const echoHeader = { 'x-echo-authorization': sent, 'www-authenticate': `Bearer realm="${sent}"` };
  const json = { ...echoHeader, 'content-type': 'application/json' };
  const id = exchange.url.split('/').pop();
  switch (id) {
    case '1':
      return answer(exchange, 204, echoHeader);
    case '2':
      return answer(exchange, 400, json, JSON.stringify({ error: 1, message: `you sent Authorization: ${sent}` }));
    case '3':
      return answer(
        exchange,
        401,
        { ...echoHeader, 'content-type': 'application/problem+json' },
        JSON.stringify({ title: 'bad token', detail: `${sent} rejected` }),
      );
    case '4':
      return answer(exchange, 404, { ...echoHeader, 'content-type': 'text/plain' }, `no plant for ${sent}\nsecond line ${sent}`);
    case '5':
      return answer(exchange, 500, { ...echoHeader, 'content-type': 'text/html' }, `<html><title>Error for ${sent}</title></html>`);
    case '6':
      return answer(exchange, 302, {
        ...echoHeader,
        location: `https://collector.example/steal?auth=${encodeURIComponent(sent)}&raw=${sent.slice(7)}`,
      });
    case '7':
      return answer(exchange, 503, json, JSON.stringify({ error: 7, message: `overloaded, retry with ${sent}` }));
    case '8':
      return answer(exchange, 429, { ...json, 'retry-after': '120' }, JSON.stringify({ error: 8, message: `slow down ${sent}` }));
    case '9':
      return; // silent: the timeout
    case '10':
      writeHead(exchange, 400, { ...json, 'content-length': 1000 });
      exchange.connection.socket.write(`{"error":10,"message":"${sent}`, () => exchange.connection.socket.resetAndDestroy());
      return;
    case '11':
      return answer(
        exchange,
        400,
        { ...json, 'content-encoding': 'gzip' },
        gzipSync(JSON.stringify({ error: 11, message: `zipped ${sent}` })),
      );
    case '12':
      // Cut to 300 characters, this message would end with a prefix of the token.
      return answer(exchange, 400, json, JSON.stringify({ error: 12, message: `${'x'.repeat(276)} ${sent}` }));
    case '13':
      return answer(exchange, 302, { ...echoHeader, location: `https://collector.example/next?t=${percentEncodeAll(sent)}` });
    case '14':
      return answer(exchange, 500, { 'content-type': 'text/html' }, `<html><title>${entityEncodeAll(sent)}</title></html>`);
    case '15':
      return answer(exchange, 400, { ...json, 'x-echo-base64': Buffer.from(sent).toString('base64') }, '{"error":15,"message":"b64"}');
    case '16': {
      // PHP's json_encode escapes '/' as '\/': in a body cut short (not valid JSON) and in a header.
      const escaped = JSON.stringify(sent).slice(1, -1).replace(/\//g, '\\/');
      return answer(exchange, 400, { ...json, 'x-echo-json': escaped }, `{"error":16,"message":"you sent ${escaped}`);
    }
    case '17':
      // UTF-16 with a byte-order mark and no charset: read as UTF-8, its letters come out one by one.
      return answer(exchange, 400, json, withBom('utf16le', JSON.stringify({ error: 17, message: `you sent ${sent}` })));
    case '18':
      return answer(exchange, 400, json, withBom('utf32le', JSON.stringify({ error: 18, message: `you sent ${sent}` })));
    default:
      return modes.reply(400, json, JSON.stringify({ error: 99, message: `unknown plant, ${sent}` }))(exchange);
  }
};
const ECHO_IDS = Array.from({ length: 18 }, (_, i) => String(i + 1));
/**
 * Every echo, at a fixed concurrency: with a retry wait of 0, the adaptive default cut its limit
 * for the 503, the slots went to ids refused again and again, and after 1 s of nothing but
 * refusals the run gave up with half the ids unsent. This file is about where the token goes.
 */
const DELETE_ECHOES = ['delete', '--concurrency', '8', ...ECHO_IDS];

/** `text` in UTF-16LE or UTF-32LE, after its byte-order mark. */
function withBom(encoding: 'utf16le' | 'utf32le', text: string): Buffer {
  if (encoding === 'utf16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const units = Array.from(text, (c) => {
    const unit = Buffer.alloc(4);
    unit.writeUInt32LE(c.codePointAt(0) as number);
    return unit;
  });
  return Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x00]), ...units]);
}
const percentEncodeAll = (text: string): string => Array.from(text, (c) => `%${c.charCodeAt(0).toString(16)}`).join('');
const entityEncodeAll = (text: string): string => Array.from(text, (c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');
/** Short deadlines and no waiting between attempts: retries happen, quickly. */
const FAST = ['--timeout', '0.5', '--retries', '1', '--max-retry-wait', '0'];

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'plantstore-leak-'));
  configDir = path.join(work, 'config');
  tokenFile = path.join(work, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  echo = await startHostileServer(echoScript);
  refusedPort = await closedPort();
  other = createOtherHost();
  if (OPENSSL) {
    // A certificate whose only name holds the token: Node's altname error quotes it.
    const ca = createCa(work);
    const cert = issue(ca, work, 'canary', [`DNS:${TOKEN}.example`]);
    tls = { server: await startHttpsServer(cert.cert, cert.key), caFile: ca.certFile };
  }
  const login = await runTimed(['--profile', 'stored', 'auth', 'login', '--with-token', '--base-url', echo.url], {
    env: { PLANTSTORE_CONFIG_DIR: configDir },
    input: `${TOKEN}\n`,
  });
  expect(login.code).toBe(0);
  expectNoToken(login, expect);
});

afterAll(async () => {
  await echo?.close();
  await tls?.server.close();
  await other?.remove();
  rmSync(work, { recursive: true, force: true });
});

/** Where the token comes from in a run. */
const sources = {
  env: () => ({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: echo.url }),
  stored: () => ({ PLANTSTORE_PROFILE: 'stored' }),
  'token file': () => ({ PLANTSTORE_TOKEN_FILE: tokenFile, PLANTSTORE_BASE_URL: echo.url }),
};
type Source = keyof typeof sources;
const SOURCES = Object.keys(sources) as Source[];

async function plantstore(args: string[], env: Record<string, string>, input?: string): Promise<TimedResult> {
  return runTimed(args, { env: { PLANTSTORE_CONFIG_DIR: configDir, ...env }, ...(input === undefined ? {} : { input }) });
}

/** Case-insensitive: host names and some layers fold case, and a folded token is still most of the secret. */
const ANY_CASE = new RegExp(TOKEN, 'i');
/** Its first ten characters: what a message cut to length before masking would have shown. */
const PREFIX = new RegExp(TOKEN.slice(0, 10), 'i');

function expectNoToken(run: TimedResult, expect: ExpectStatic): void {
  for (const output of [run.stdout, run.stderr]) {
    expect(output).not.toMatch(ANY_CASE);
    expect(output).not.toMatch(PREFIX);
  }
}

interface Case {
  name: string;
  args: () => string[];
  env: () => Record<string, string>;
  input?: string;
  exit: number;
  /** Something the output must show, proving the case did what it says. */
  shows?: () => string;
}

const cases: Case[] = [
  ...SOURCES.flatMap((source): Case[] => [
    {
      name: `delete, every echo, --verbose (${source})`,
      args: () => [...FAST, '--verbose', ...DELETE_ECHOES],
      env: sources[source],
      exit: 1,
      shows: () => '< x-echo-authorization: Bearer ***',
    },
    {
      name: `delete, every echo, --json (${source})`,
      args: () => [...FAST, '--json', ...DELETE_ECHOES],
      env: sources[source],
      exit: 1,
      shows: () => '"message":"you sent Authorization: Bearer ***"',
    },
    {
      name: `delete, one id, PLANTSTORE_DEBUG=1 (${source})`,
      args: () => [...FAST, 'delete', '2'],
      env: () => ({ ...sources[source](), PLANTSTORE_DEBUG: '1' }),
      exit: 1,
    },
    { name: `auth status (${source})`, args: () => ['auth', 'status'], env: sources[source], exit: 0, shows: () => 'Leak…' },
    { name: `auth status --json (${source})`, args: () => ['--json', 'auth', 'status'], env: sources[source], exit: 0 },
    { name: `config list --json (${source})`, args: () => ['--json', 'config', 'list'], env: sources[source], exit: 0 },
    {
      name: `a base URL carrying the token in its query (${source})`,
      args: () => ['--base-url', `https://127.0.0.1:${refusedPort}/v1?access_token=${TOKEN}`, 'delete', '1'],
      env: sources[source],
      exit: 3,
      shows: () => 'invalid base URL',
    },
    {
      name: `a base URL carrying the token in its path, connection refused, --verbose (${source})`,
      args: () => [...FAST, '--verbose', '--base-url', `http://127.0.0.1:${refusedPort}/${TOKEN}`, 'delete', '1'],
      env: sources[source],
      exit: 7,
      shows: () => `127.0.0.1:${refusedPort}/***/plants/1`,
    },
    {
      name: `a certificate naming the token, via a lower-layer TLS error (${source})`,
      args: () => (tls ? ['--cacert', tls.caFile, '--base-url', `https://localhost:${tls.server.port}`, 'delete', '1'] : []),
      env: sources[source],
      exit: 7,
      shows: () => 'names ***.example, not localhost: use a name it names in the base URL',
    },
  ]),
  {
    name: 'auth login --with-token --json --verbose',
    args: () => ['--profile', 'fresh', '--json', '--verbose', 'auth', 'login', '--with-token'],
    env: () => ({}),
    input: `  ${TOKEN}  \n`,
    exit: 0,
  },
  {
    name: 'auth login, with PLANTSTORE_TOKEN set too',
    args: () => ['--profile', 'fresh2', 'auth', 'login', '--with-token'],
    env: () => ({ PLANTSTORE_TOKEN: TOKEN }),
    input: `${TOKEN}\n`,
    exit: 0,
  },
  {
    name: 'auth login refusing the token with a space after it',
    args: () => ['auth', 'login', '--with-token'],
    env: () => ({}),
    input: `${TOKEN} extra\n`,
    exit: 2,
  },
  {
    name: 'auth login refusing the token with a control character',
    args: () => ['auth', 'login', '--with-token'],
    env: () => ({}),
    input: `${TOKEN}\u0007\u001b[2J\n`,
    exit: 2,
  },
  {
    name: 'auth logout with PLANTSTORE_TOKEN set',
    args: () => ['auth', 'logout'],
    env: () => ({ PLANTSTORE_TOKEN: TOKEN }),
    exit: 0,
  },
  // Errors raised before a run resolves its token (the base URL, the profile) still mask the
  // tokens kept on the machine: the stored one, and the token file's.
  {
    name: 'the stored token pasted into PLANTSTORE_BASE_URL',
    args: () => ['delete', '1'],
    env: () => ({ ...sources.stored(), PLANTSTORE_BASE_URL: TOKEN }),
    exit: 3,
    shows: () => "invalid base URL '***'",
  },
  {
    name: 'the stored token pasted into PLANTSTORE_BASE_URL, --json',
    args: () => ['--json', 'delete', '1'],
    env: () => ({ ...sources.stored(), PLANTSTORE_BASE_URL: TOKEN }),
    exit: 3,
  },
  { name: 'the stored token typed as --base-url', args: () => ['--base-url', TOKEN, 'delete', '1'], env: sources.stored, exit: 3 },
  { name: 'the stored token typed as --profile', args: () => ['--profile', TOKEN, 'delete', '1'], env: () => ({}), exit: 3 },
  {
    name: 'the stored token given to config set base-url',
    args: () => ['config', 'set', 'base-url', TOKEN],
    env: sources.stored,
    exit: 3,
  },
  {
    name: "the token file's token pasted into PLANTSTORE_BASE_URL",
    args: () => ['delete', '1'],
    env: () => ({ PLANTSTORE_TOKEN_FILE: tokenFile, PLANTSTORE_BASE_URL: TOKEN }),
    exit: 3,
  },
  {
    name: "the --token-file's token typed as --base-url",
    args: () => ['--token-file', tokenFile, '--base-url', TOKEN, 'delete', '1'],
    env: () => ({}),
    exit: 3,
  },
  { name: 'the token typed as an id (usage error)', args: () => ['delete', TOKEN], env: sources.env, exit: 2 },
  { name: 'an invalid --timeout', args: () => ['--timeout', 'soon', 'delete', '1'], env: sources.env, exit: 2 },
  { name: 'an unknown option', args: () => ['--jsn', 'delete', '1'], env: sources.env, exit: 2 },
  { name: 'no base URL', args: () => ['delete', '1'], env: () => ({ PLANTSTORE_TOKEN: TOKEN }), exit: 3 },
  {
    name: 'plain http to a remote host',
    args: () => ['--base-url', 'http://plants.example.com', 'delete', '1'],
    env: sources.env,
    exit: 3,
  },
  {
    name: 'a token file holding the token and junk (exit 3)',
    args: () => ['--token-file', junkTokenFile(), 'delete', '1'],
    env: () => ({ PLANTSTORE_BASE_URL: echo.url }),
    exit: 3,
    shows: () => 'junk-token',
  },
  {
    name: 'a *.localhost name over plain http, which DNS could send anywhere',
    args: () => ['--base-url', echo.url.replace('127.0.0.1', 'plants.localhost'), 'delete', '1'],
    env: sources.env,
    exit: 3,
    shows: () => 'refusing to send the token over plain http to plants.localhost',
  },
  {
    name: 'proxies on another host set for a loopback target, --verbose',
    args: () => ['--verbose', 'delete', '1'],
    env: () => ({
      ...sources.env(),
      HTTP_PROXY: `http://${other.address}:9`,
      http_proxy: `http://${other.address}:9`,
    }),
    exit: 0,
    shows: () => '/plants/1 (direct)',
  },
  {
    name: 'a refused proxy whose password is the token, --verbose',
    args: () => [...FAST, '--verbose', '--base-url', 'https://plants.example.com', 'delete', '1'],
    env: () => ({ PLANTSTORE_TOKEN: TOKEN, HTTPS_PROXY: `http://user:${TOKEN}@127.0.0.1:${refusedPort}` }),
    exit: 7,
    shows: () => 'via proxy http://***@127.0.0.1',
  },
];

describe.concurrent('the token is printed nowhere', () => {
  it.for(cases)('$name', async (c, { expect, skip }) => {
    if (c.name.includes('certificate') && !tls) skip('openssl is not installed');
    const run = await plantstore(c.args(), c.env(), c.input);
    expect(run.code).toBe(c.exit);
    expectNoToken(run, expect);
    if (c.shows) expect(`${run.stdout}${run.stderr}`).toContain(c.shows());
    // Masking never breaks a JSON line: it applies to strings before they are serialized.
    if (c.args().includes('--json')) for (const line of run.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('auth token, the one command that prints it', () => {
  it.each(SOURCES)('prints exactly the token on stdout and nothing on stderr (%s)', async (source) => {
    const run = await runTimed(['auth', 'token'], { env: { PLANTSTORE_CONFIG_DIR: configDir, ...sources[source]() } });
    expect(run).toMatchObject({ code: 0, stdout: `${TOKEN}\n`, stderr: '' });
  });
});

/** A token file that is not a token, though it holds one: refused without quoting it. */
function junkTokenFile(): string {
  const file = path.join(work, 'junk-token');
  writeFileSync(file, `${TOKEN} and junk\n`);
  return file;
}

// Standard base64 has '/': the forms only such a token has (a JSON '\/' escape) and bodies in
// UTF-16 or UTF-32 (whose NUL bytes, read as UTF-8 and cleaned, would leave the letters in a row).
describe('a token with "/" and "+", as standard base64 gives', () => {
  const SLASHED = 'Leak/Slash+Canary/7f3a9C2e1B5d4a6F8e0c==';
  const forms = [SLASHED, SLASHED.replace(/\//g, '\\/'), SLASHED.slice(0, 10)];
  it.each([
    ['--verbose', ['--verbose']],
    ['--json', ['--json']],
  ])('delete, every echo, %s: no form of it anywhere', async (_name, flags) => {
    const run = await plantstore([...FAST, ...flags, ...DELETE_ECHOES], { PLANTSTORE_TOKEN: SLASHED, PLANTSTORE_BASE_URL: echo.url });
    expect(run.code).toBe(1);
    for (const output of [run.stdout, run.stderr]) {
      for (const form of forms) expect(output.toLowerCase()).not.toContain(form.toLowerCase());
    }
    // The UTF-16 and UTF-32 bodies were read as such: their messages show, masked.
    expect(`${run.stdout}${run.stderr}`).toContain('you sent Bearer ***');
  });
});
