// Issue 41 item 5: the watch's loop, its readings stepped by the test. Outside a terminal a line
// per change, never one a reading when nothing changed; --json an object per change; a signal
// ends it with exit 0; a journal finished while watched ends it, saying so.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELETE_JOURNAL_WORDS } from '../../../../src/commands/delete/operation.js';
import { runJournalWatch } from '../../../../src/commands/journal/watch.js';
import { createContext } from '../../../../src/context.js';
import { registerJournalWords } from '../../../../src/engine/journal-words.js';
import type { Stdin } from '../../../../src/platform/stdin.js';
import { createTestIO, type TestIO } from '../../../../src/ui/io.js';
import { deleted, HEADER, journalFolder, sent } from '../../batch/journal/fixtures.js';

const folder = journalFolder();
// As the CLI's delete command registers them: the journals here are delete's.
beforeAll(() => registerJournalWords('delete', DELETE_JOURNAL_WORDS));
const START = '{"start":"2026-03-01T12:00:01.000Z","ids":3}';
const END = '{"end":"finished","ids":3,"notSent":0,"unrecorded":0,"readAll":true}';

/** Runs the watch over `folder.file`; before each reading after the first, `step(reading)` may change the journal, or stop the watch. */
async function watch(json: boolean, step: (reading: number, stop: () => void) => void): Promise<{ exit: number; io: TestIO }> {
  const io = createTestIO();
  const interrupt = new AbortController();
  const ctx = createContext({
    io,
    env: { PLANTSTORE_CONFIG_DIR: folder.dir },
    stdin: Readable.from([]) as unknown as Stdin,
    version: '0.0.0-test',
    signal: interrupt.signal,
  });
  let reading = 0;
  let clock = 0;
  const exit = await runJournalWatch(
    { files: [folder.file], json, watch: true },
    ctx,
    async (signal) => {
      step(++reading, () => interrupt.abort('SIGINT'));
      clock += 1000;
      return !signal.aborted;
    },
    () => clock,
  );
  return { exit, io };
}

describe('journal status --watch, reading after reading', () => {
  it('outside a terminal, prints a line when something changed, and nothing for readings that changed nothing', async () => {
    writeFileSync(folder.file, `${[HEADER, START, sent('1'), deleted('1')].join('\n')}\n`, { mode: 0o600 });
    const { exit, io } = await watch(false, (reading, stop) => {
      if (reading === 3) appendFileSync(folder.file, `${sent('2')}\n${deleted('2')}\n`);
      if (reading === 6) stop();
    });
    expect(exit).toBe(0);
    // Six readings: the first, the one after the append, and four that changed nothing.
    expect(io.stdout().split('\n')).toEqual([
      `${folder.file} stopped without a record (killed?), 1 decided: how many not sent is unknown`,
      'decided 1 of 3 (33%): 1 deleted, 0 absent, 0 failed, 0 in flight, not sent unknown; rate unknown, time left unknown',
      'decided 2 of 3 (66%): 2 deleted, 0 absent, 0 failed, 0 in flight, not sent unknown; 0.3/s, 0:03 left',
      '',
    ]);
    expect(io.stderr()).toBe('');
  });

  it('ends by itself once the journal says the job is finished, saying so, exit 0', async () => {
    writeFileSync(folder.file, `${[HEADER, START, sent('1'), deleted('1')].join('\n')}\n`, { mode: 0o600 });
    const { exit, io } = await watch(false, (reading) => {
      if (reading === 2) appendFileSync(folder.file, `${[sent('2'), deleted('2'), sent('3'), deleted('3'), END].join('\n')}\n`);
      if (reading > 5) throw new Error('the watch went on after the job finished');
    });
    expect(exit).toBe(0);
    expect(io.stdout().trimEnd().split('\n').slice(-3)).toEqual([
      `${folder.file} finished: its 3 ids, each decided`,
      'decided 3 of 3 (100%): 3 deleted, 0 absent, 0 failed, 0 in flight, 0 not sent; 1.0/s, 0:00 left',
      'job finished: the last run went through every id',
    ]);
  });

  it('--json: one object per change', async () => {
    writeFileSync(folder.file, `${[HEADER, START, sent('1'), deleted('1')].join('\n')}\n`, { mode: 0o600 });
    const { exit, io } = await watch(true, (reading, stop) => {
      if (reading === 2) appendFileSync(folder.file, `${sent('2')}\n`);
      if (reading === 4) stop();
    });
    expect(exit).toBe(0);
    const objects = io
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects.map((object) => [object['decided'], object['inFlight']])).toEqual([
      [1, 0],
      [1, 1],
    ]);
  });
});
