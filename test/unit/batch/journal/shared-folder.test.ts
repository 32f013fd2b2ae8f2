// A journal on a volume as Kubernetes makes it (issue 41): the volume's root is group fsGroup,
// mode 2775 (setgid), and the pod's process is in that group. Above the journal's own folder,
// such a folder, shared by a group the process is in, is taken: its members can rename the
// journal's folder away, but what they put in its place is theirs, and refused. The journal's
// own folder may not be so shared (they could remove the lock of a running job), and its refusal
// names the fix that fits a volume. The config's walk never takes such a folder. "A group the
// process is in" is the test's own group (its effective one); "another group", one it is not in.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRefusedError, openJournal, readJournalForPlan } from '../../../../src/batch/journal/index.js';
import { pathProblem, walkPath } from '../../../../src/config/path-trust.js';
import { HEADER, journalFolder, RUN } from './fixtures.js';

const at = journalFolder();
const posix = process.platform !== 'win32';
const ours = process.getegid?.() ?? 0;
/** A group this process is not in (nogroup, when it is not ours). */
const theirs = [65534, 65533].find((gid) => gid !== ours && !(process.getgroups?.() ?? []).includes(gid)) ?? 65534;
const asRoot = posix && process.getuid?.() === 0;

/** `<dir>/volume`, made as the kubelet makes a volume's root: group `gid`, `mode`. */
function volume(mode: number, gid = ours): string {
  const root = path.join(at.dir, 'volume');
  mkdirSync(root);
  if (asRoot) chownSync(root, 0, gid);
  chmodSync(root, mode);
  return root;
}

/** A folder only the user can write, in `parent`, as `mkdir -p -m 0700` makes it there (setgid inherited). */
function ownFolder(parent: string): string {
  const folder = path.join(parent, 'journals');
  mkdirSync(folder, { mode: 0o700 });
  return folder;
}

async function refusedWith(file: string): Promise<string> {
  const error = await openJournal(file, RUN).then(
    (journal) => {
      journal.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalRefusedError);
  // A reader (journal status, --dry-run) is held to the same rule, in the same words.
  await expect(readJournalForPlan(file, RUN)).rejects.toThrow((error as Error).message);
  return (error as Error).message;
}

describe.runIf(posix)("a journal below a folder its group shares (a Kubernetes volume for the pod's fsGroup)", () => {
  it("2775, of a group the process is in, above the journal's own folder: the journal is kept and resumed", async () => {
    const folder = ownFolder(volume(0o2775));
    const file = path.join(folder, 'dead-plants-3.journal');
    (await openJournal(file, RUN)).close();
    const again = await openJournal(file, RUN);
    again.close();
    expect((await readJournalForPlan(file, RUN)).isDone('1')).toBe(false);
  });

  it.runIf(asRoot)('2775 of another group: refused, as before (its members are not yours)', async () => {
    const root = volume(0o2775, theirs);
    const file = path.join(ownFolder(root), 'dead-plants-3.journal');
    expect(await refusedWith(file)).toBe(
      `cannot use ${file} as a journal: the folder ${root} on its path is writable by others (mode 2775), so anyone could replace it; run chmod go-w ${root}, or give --journal a path in a folder only you can write`,
    );
  });

  it.each([
    ['775', 'not setgid', 0o775],
    ['2777', 'others can write it', 0o2777],
    ['3775', 'sticky too: taken as /tmp is', 0o3775],
  ])('mode %s (%s): as before', async (_, why, mode) => {
    const root = volume(mode);
    const file = path.join(ownFolder(root), 'dead-plants-3.journal');
    if (why.startsWith('sticky')) {
      (await openJournal(file, RUN)).close();
      return;
    }
    expect(await refusedWith(file)).toContain(`the folder ${root} on its path is writable by others (mode ${mode.toString(8)})`);
  });

  it("the journal's own folder so shared: refused, naming the folder to make in it, and Kubernetes' policy", async () => {
    const root = volume(0o2775);
    const file = path.join(root, 'dead-plants-3.journal');
    expect(await refusedWith(file)).toBe(
      `cannot use ${file} as a journal: its folder ${root} is writable by its group (mode 2775), whose members could remove the journal or its lock; make a folder only you can write in it (mkdir -p -m 0700 ${root}/journals) and give --journal a path there; on a Kubernetes volume, set fsGroupChangePolicy: OnRootMismatch, or each mount makes your folders and journals group-writable again`,
    );
  });

  it("a journal its group can write (Kubernetes' default policy, at a mount) is refused; the refusal names the policy", async () => {
    const folder = ownFolder(volume(0o2775));
    chmodSync(folder, 0o2700);
    const file = path.join(folder, 'dead-plants-3.journal');
    writeFileSync(file, `${HEADER}\n`);
    chmodSync(file, 0o660);
    expect(await refusedWith(file)).toBe(
      `cannot use ${file} as a journal: it is writable by others (mode 660), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${file}; on a Kubernetes volume, set fsGroupChangePolicy: OnRootMismatch, or each mount makes your folders and journals group-writable again`,
    );
  });

  it("the config's walk takes no such folder: its trust is as it was", () => {
    const folder = ownFolder(volume(0o2775));
    const root = path.dirname(folder);
    expect(pathProblem(folder, undefined)).toMatchObject({ kind: 'writable', what: `folder ${root}` });
    expect(walkPath(folder, undefined).problem).toMatchObject({ kind: 'writable', what: `folder ${root}` });
    expect(pathProblem(folder, undefined, { groupSharedAbove: true })).toBeUndefined();
  });
});
