// "Already absent" only when the API says so, in-process against a fake store that answers
// as the sandbox does (a 400 Error object with code 1 for a plant it does not have). Which
// bodies are an Error object is test/unit/error-body's; the sandbox itself, a wrong path
// prefix and an answer lost before a retry are in test/e2e/missing.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { type Answer, deleted, inProcess, refused } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const TOKEN = 'missing-Token-5e1b7c';
const READY = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'http://127.0.0.1:9' };

const { run } = inProcess();

/** Plants 1 to 99, each deleted once; then "error 1: plant N does not exist", as the sandbox says. */
function store(): (id: string) => Answer {
  const gone = new Set<string>();
  return (id) => {
    if (!gone.has(id) && Number(id) >= 1 && Number(id) <= 99) {
      gone.add(id);
      return deleted(id);
    }
    return refused(id, { status: 400, error: 1, message: `plant ${id} does not exist` });
  };
}

describe('--ignore-missing with the codes that mean "no such plant"', () => {
  it.each([
    ['--missing-error', ['delete', '--ignore-missing', '--missing-error', '1'], {}, false],
    ['PLANTSTORE_MISSING_ERROR', ['delete', '--ignore-missing'], { PLANTSTORE_MISSING_ERROR: '1' }, false],
    // A profile is read beside an environment token and base URL only when named (flags/read.ts).
    ['the profile key missing-error', ['delete', '--ignore-missing'], { PLANTSTORE_PROFILE: 'default' }, true],
  ])('re-running a batch is idempotent, codes from %s: exit 0, the second time "already absent"', async (_name, args, env, setKey) => {
    if (setKey) expect((await run(['config', 'set', 'missing-error', '1'])).exit).toBe(0);
    const answer = store();
    const ids = ['10', '11'];
    const first = await run([...args, ...ids], { env: { ...READY, ...env }, answer });
    expect(first).toMatchObject({ exit: 0, stdout: 'Deleted plant 10\nDeleted plant 11\n' });
    const again = await run([...args, ...ids], { env: { ...READY, ...env }, answer });
    expect(again).toMatchObject({ exit: 0, sent: ids, stdout: ids.map((id) => `Plant ${id} already absent\n`).join('') });
  });

  it('without a declared code, the API error is a refusal: exit 1', async () => {
    const answer = store();
    expect((await run(['delete', '5'], { env: READY, answer })).exit).toBe(0);
    const again = await run(['delete', '--ignore-missing', '5'], { env: READY, answer });
    expect(again.exit).toBe(1);
    expect(normalize(again.stderr)).toMatchInlineSnapshot(`
      "✗ plant 5: error 1: plant 5 does not exist (HTTP 400)
      "
    `);
  });

  it('the flag is stronger than the environment, which is stronger than the profile', async () => {
    const answer = store();
    expect((await run(['config', 'set', 'missing-error', '1'])).exit).toBe(0);
    expect((await run(['delete', '6'], { env: READY, answer })).exit).toBe(0);
    const profileSays = await run(['--profile', 'default', 'delete', '--ignore-missing', '6'], { env: READY, answer });
    expect(profileSays.exit).toBe(0);
    const envWins = await run(['delete', '--ignore-missing', '6'], { env: { ...READY, PLANTSTORE_MISSING_ERROR: '99' }, answer });
    expect(envWins.exit).toBe(1);
    const flagWins = await run(['delete', '--ignore-missing', '--missing-error', '1', '6'], {
      env: { ...READY, PLANTSTORE_MISSING_ERROR: '99' },
      answer,
    });
    expect(flagWins.exit).toBe(0);
  });

  it("a run configured by the environment, no profile named, still takes the profile's missing-error (issue 36)", async () => {
    const answer = store();
    expect((await run(['config', 'set', 'missing-error', '1'])).exit).toBe(0);
    expect((await run(['delete', '8'], { env: READY, answer })).exit).toBe(0);
    const again = await run(['delete', '--ignore-missing', '8'], { env: READY, answer });
    expect(again.exit).toBe(0);
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(/absent/i);
  });

  it.each([
    [['delete', '--missing-error', 'one', '7'], {}, 2],
    [['delete', '7'], { PLANTSTORE_MISSING_ERROR: '1,x' }, 3],
    [['config', 'set', 'missing-error', 'x'], {}, 2],
  ])('a bad value is refused before anything is sent: %j', async (args, env, exit) => {
    const result = await run(args, { env: { ...READY, ...env } });
    expect(result.exit).toBe(exit);
    expect(result.error).toMatchSnapshot();
    expect(result.built).toEqual([]);
  });
});

describe('answers that are not the API saying "no such plant"', () => {
  // What the HTTP client makes of an HTML page, an empty body, or a framework's route-miss JSON: no Error object.
  it.each(['404 Not Found', 'Not Found'])(
    'a 404 without an Error object (%s) stays exit 5, with a hint about the base URL, even with --ignore-missing',
    async (message) => {
      const answer = (id: string) => refused(id, { status: 404, error: null, message });
      const result = await run(['delete', '--ignore-missing', '--missing-error', '1', '20', '21'], { env: READY, answer });
      expect(result).toMatchObject({ exit: 5, stdout: '', sent: ['20', '21'] });
      expect(normalize(result.stderr)).toMatchSnapshot();
    },
  );
});
