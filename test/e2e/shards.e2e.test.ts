// Shards as real processes against one loopback server that records every request: N runs given
// the same list (each in its own order, with repeats) delete every id exactly once; a dry run
// lists exactly its part; a journal keeps its shard; and the documented examples (docs/shards.md)
// run as written, with the variables Kubernetes, GitHub Actions and xargs would set. The
// Kubernetes pods run on a folder made as the kubelet makes a volume for the pod's fsGroup
// (root's, group fsGroup, mode 2775), as the spec's user in the spec's groups: the test chowns
// (root, as CI and the sessions run) and starts each pod with util-linux setpriv; without them
// it fails, saying so, rather than skip.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partOf } from '../../src/engine/shard.js';
import { idOf, idRange } from '../helpers/batch-output.js';
import { BIN, cleanEnv, finished, plantstoreOnPath, ROOT, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { HAS_SCRIPT, runAtTerminal } from '../helpers/terminal.js';

const TOKEN = 'shard-Token-4d8e0b11';
const { serve, envFor } = loopbackCases(TOKEN);
const sorted = (ids: Iterable<string>) => [...ids].sort((a, b) => Number(a) - Number(b));

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'plantstore-shards-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

it('4 shards as 4 processes, each given the list in its own order with repeats, delete every id exactly once', async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const ids = idRange(1, 400);
  const runs = [0, 1, 2, 3].map((index) => {
    // Each machine's copy of the list: rotated, and with some ids twice.
    const copy = [...ids.slice(index * 100), ...ids.slice(0, index * 100), ...ids.slice(0, 50)];
    const env = index === 3 ? { ...envFor(server.url), PLANTSTORE_SHARD: '3/4' } : envFor(server.url);
    const args = index === 3 ? ['delete', '--stdin'] : ['delete', '--stdin', '--shard', `${index}/4`];
    return finished(startPlantstore(args, { env, input: copy.join('\n') }));
  });
  const results = await Promise.all(runs);
  for (const result of results) expect(result.code).toBe(0);
  const deleted = server.requests.map((r) => idOf(r.url));
  expect(sorted(deleted)).toEqual(ids);
  // Each process sent its own part, and the parts are near even (100 each, give or take).
  for (const [index, result] of results.entries()) {
    const mine = ids.filter((id) => partOf(id, 4) === index);
    expect(result.stdout).toBe(
      sorted(mine)
        .sort((a, b) => ((Number(a) - 1 - index * 100 + 400) % 400) - ((Number(b) - 1 - index * 100 + 400) % 400))
        .map((id) => `Deleted plant ${id}\n`)
        .join(''),
    );
    expect(mine.length).toBeGreaterThan(70);
  }
});

it('--dry-run --shard I/N lists exactly the ids of part I, in input order', async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const ids = idRange(1, 60).reverse();
  const result = await runPlantstore(['delete', '--dry-run', '--shard', '1/3', ...ids], { env: envFor(server.url) });
  expect(result.code).toBe(0);
  const listed = result.stdout
    .trimEnd()
    .split('\n')
    .map((line) => idOf(line.split(' ')[1] ?? ''));
  expect(listed).toEqual(ids.filter((id) => partOf(id, 3) === 1));
  expect(server.requests).toEqual([]);
});

it('--max-deletes counts the ids of the shard, not of the list', async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const ids = idRange(1, 100);
  const mine = ids.filter((id) => partOf(id, 2) === 0).length;
  const over = await runPlantstore(['delete', '--shard', '0/2', '--max-deletes', String(mine - 1), ...ids], { env: envFor(server.url) });
  expect(over.code).toBe(9);
  // The refusal names the shard, and does not send a shard to split the job again.
  expect(over.stderr).toContain(`refusing: ${mine} plants to delete (shard 0/2) at ${server.url}`);
  expect(over.stderr).toContain(`give --max-deletes ${mine}\n`);
  expect(over.stderr).not.toContain('split the job with --shard');
  const within = await runPlantstore(['delete', '--shard', '0/2', '--max-deletes', String(mine), ...ids], { env: envFor(server.url) });
  expect(within.code).toBe(0);
  expect(server.requests.length).toBe(mine);
});

it.skipIf(!HAS_SCRIPT)('at a terminal, the question a shard asks names its shard and counts its ids', async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const ids = idRange(1, 400);
  const mine = ids.filter((id) => partOf(id, 2) === 1);
  const file = path.join(scratch, 'ids.txt');
  writeFileSync(file, `${ids.join('\n')}\n`);
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} delete --shard 1/2 --stdin < ${JSON.stringify(file)}`;
  const result = await runAtTerminal(command, cleanEnv(envFor(server.url)), 'no\n');
  expect(result.stdout).toContain(
    `About to delete ${mine.length} plants (shard 1/2) at ${server.url} (profile 'default'): ${mine[0]} … ${mine.at(-1)}.`,
  );
  expect(result.code).toBe(9);
  expect(server.requests).toEqual([]);
});

it("a journal records its shard and refuses a run with another, or without one, naming both; an old journal's shard is none", async () => {
  const server = await serve((_req, res) => res.writeHead(204).end());
  const journal = path.join(scratch, 'shard0.journal');
  const ids = idRange(1, 20);
  const first = await runPlantstore(['delete', '--shard', '0/2', '--journal', journal, ...ids], { env: envFor(server.url) });
  expect(first.code).toBe(0);
  expect(JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '')).toMatchObject({ shard: '0/2' });
  const sent = server.requests.length;
  const other = await runPlantstore(['delete', '--shard', '1/2', '--journal', journal, ...ids], { env: envFor(server.url) });
  expect(other.code).toBe(2);
  expect(other.stderr).toContain('was written by --shard 0/2, and this run is --shard 1/2');
  const none = await runPlantstore(['delete', '--journal', journal, ...ids], { env: envFor(server.url) });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('was written by --shard 0/2, and this run is a run without --shard');
  // A journal without a shard in its header (as every journal before shards) is refused to a shard.
  const old = path.join(scratch, 'old.journal');
  expect((await runPlantstore(['delete', '--journal', old, '1'], { env: envFor(server.url) })).code).toBe(0);
  expect(readFileSync(old, 'utf8')).not.toContain('"shard"');
  const sharded = await runPlantstore(['delete', '--shard', '0/2', '--journal', old, ...ids], { env: envFor(server.url) });
  expect(sharded.code).toBe(2);
  expect(sharded.stderr).toContain('was written by a run without --shard, and this run is --shard 0/2');
  expect(server.requests.length).toBe(sent + 1);
  // The same shard resumes: nothing left to send.
  const again = await runPlantstore(['delete', '--shard', '0/2', '--journal', journal, ...ids], { env: envFor(server.url) });
  expect(again.code).toBe(0);
  expect(server.requests.length).toBe(sent + 1);
});

describe('the examples of docs/shards.md, as written', () => {
  const DOC = readFileSync(path.join(ROOT, 'docs/shards.md'), 'utf8');
  const blocks = (lang: string) => [...DOC.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
  // Ten ids a pod of the largest job (8 pods) on average, 4 to 15 each, 13 to 25 for 4 shards: each
  // process has a part to send, and an id sent twice or missed shows in the server's count; a
  // process costs its start-up far more than its ids.
  const ids = idRange(1, 80);

  /** A folder holding the list, and `plantstore` on the PATH as after npm install -g. */
  const workspace = () => {
    const bin = plantstoreOnPath(scratch);
    const data = path.join(scratch, 'data');
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, 'dead-plants.txt'), `${ids.join('\n')}\n`);
    return { data, PATH: `${bin}:${process.env['PATH'] ?? ''}` };
  };

  const shell = (command: string, cwd: string, env: Record<string, string>) => {
    const child = spawn('sh', ['-c', command], { cwd, env: { HOME: scratch, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return finished(child);
  };

  const expectEachOnce = (requests: { url: string }[]) => expect(sorted(requests.map((r) => idOf(r.url)))).toEqual(ids);

  describe('the Kubernetes Indexed Job, on a volume as Kubernetes makes it', () => {
    const yaml = blocks('yaml').find((block) => block.includes('completionMode: Indexed')) ?? '';
    const field = (name: string): string => new RegExp(`\\b${name}: (\\S+)`).exec(yaml)?.[1] ?? '';
    const command = JSON.parse(/command: (\[.*\])/.exec(yaml)?.[1] ?? '[]') as string[];
    const completions = Number(field('completions'));
    // The pod's user, its group, and the group Kubernetes gives the volume and adds to the pod's process.
    const [user, group, fsGroup] = [field('runAsUser'), field('runAsGroup'), field('fsGroup')];

    /**
     * The volume as the kubelet leaves it for the pod's fsGroup: root's, group fsGroup, mode 2775
     * (setgid), the list in it group fsGroup, 0664. Its parents let the pod's user through.
     */
    const volume = (): { data: string; PATH: string } => {
      chmodSync(scratch, 0o755);
      const made = workspace();
      chownSync(made.data, 0, Number(fsGroup));
      chmodSync(made.data, 0o2775);
      chownSync(path.join(made.data, 'dead-plants.txt'), 0, Number(fsGroup));
      chmodSync(path.join(made.data, 'dead-plants.txt'), 0o664);
      return made;
    };

    /** One pod: its command as Kubernetes runs it (\$(JOB_COMPLETION_INDEX) written as the value), as its user, in its groups. */
    const pod = (line: string, index: number, data: string, env: Record<string, string>) => {
      const run = line.replaceAll('$(JOB_COMPLETION_INDEX)', String(index));
      const child = spawn('setpriv', ['--reuid', user, '--regid', group, '--groups', fsGroup, 'sh', '-c', run], {
        cwd: data,
        // What Kubernetes sets: the variables of the pod's spec, its index, HOME / for a user /etc/passwd does not name.
        env: { ...env, JOB_COMPLETION_INDEX: String(index), HOME: '/' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return finished(child);
    };

    const podEnv = (PATH: string, url: string): Record<string, string> => {
      // The variables the spec gives: the base URL (here the loopback server's), the token (from its secret).
      expect(yaml).toMatch(/- name: PLANTSTORE_BASE_URL\n\s+value: https:\/\/api\.example\.com\/v1\n/);
      expect(yaml).toMatch(/- name: PLANTSTORE_TOKEN\n\s+valueFrom:/);
      return { PATH, PLANTSTORE_BASE_URL: url, PLANTSTORE_TOKEN: TOKEN };
    };

    /**
     * The pod's user must be able to run this Node: one installed under a folder only root may enter
     * (CI's other Nodes, in a private temporary folder) cannot. The project's own Node runs them all.
     */
    const skipUnlessPodCanRunNode = (context: { skip(): void }) => {
      if (spawnSync(process.execPath, ['-e', '0'], { uid: Number(user), gid: Number(group) }).status === 0) return;
      console.warn(`skipped: uid ${user} cannot run ${process.execPath}`);
      context.skip();
    };

    it("8 pods, each with its JOB_COMPLETION_INDEX, as a user in the volume's group: each id once; a restarted pod resumes", async (context) => {
      skipUnlessPodCanRunNode(context);
      const server = await serve((_req, res) => res.writeHead(204).end());
      expect(command.slice(0, 2)).toEqual(['sh', '-c']);
      expect(completions).toBe(8);
      expect([user, group, fsGroup].map(Number).every((id) => id > 0)).toBe(true);
      expect(fsGroup).not.toBe(group);
      expect(yaml).toContain('fsGroupChangePolicy: OnRootMismatch');
      const { data, PATH } = volume();
      const env = podEnv(PATH, server.url);
      const pods = Array.from({ length: completions }, (_, index) => pod(command[2] ?? '', index, data, env));
      for (const result of await Promise.all(pods)) expect(result, result.stderr).toMatchObject({ code: 0 });
      expectEachOnce(server.requests);
      // The journals are the pod user's, in a folder only it can write.
      const journal = /--journal (\S+)\.journal/.exec(command[2] ?? '')?.[1]?.replace('$(JOB_COMPLETION_INDEX)', '7') ?? '';
      const folder = statSync(path.dirname(path.join(data, journal)));
      expect([folder.uid, folder.mode & 0o077]).toEqual([Number(user), 0]);
      expect(readFileSync(path.join(data, `${journal}.journal`), 'utf8')).toContain('"shard":"7/8"');
      // A pod restarted (exit 10, a lost node) on the same volume: the same command, nothing sent again.
      const again = await pod(command[2] ?? '', 7, data, env);
      expect(again, again.stderr).toMatchObject({ code: 0 });
      expectEachOnce(server.requests);
    });

    it("a journal in the volume's root is refused (exit 2), naming the folder to make; so is one Kubernetes' default policy made group-writable", async (context) => {
      skipUnlessPodCanRunNode(context);
      const server = await serve((_req, res) => res.writeHead(204).end());
      const { data, PATH } = volume();
      const env = podEnv(PATH, server.url);
      // The example before: the journals in the volume's root, where anyone in the group could remove them or their lock.
      const inRoot = await pod('plantstore delete --shard 0/8 --journal dead-plants-0.journal --stdin < dead-plants.txt', 0, data, env);
      expect(inRoot.code).toBe(2);
      expect(inRoot.stderr).toContain(
        `cannot use dead-plants-0.journal as a journal: its folder ${data} is writable by its group (mode 2775), whose members could remove the journal or its lock; make a folder only you can write in it (mkdir -p -m 0700 ${data}/journals) and give --journal a path there; on a Kubernetes volume, set fsGroupChangePolicy: OnRootMismatch`,
      );
      expect(server.requests).toEqual([]);
      // With fsGroupChangePolicy: Always, each mount adds group rw to every file and folder on the volume (setgid on folders).
      const first = await pod(command[2] ?? '', 0, data, env);
      expect(first, first.stderr).toMatchObject({ code: 0 });
      execFileSync('chmod', ['-R', 'g+rwX', data]);
      execFileSync('find', [data, '-type', 'd', '-exec', 'chmod', 'g+s', '{}', ';']);
      const remounted = await pod(command[2] ?? '', 0, data, env);
      expect(remounted.code).toBe(2);
      expect(remounted.stderr).toMatch(
        /is writable by its group \(mode 2770\), whose members could remove the journal or its lock; .*fsGroupChangePolicy: OnRootMismatch/,
      );
    });
  });

  it('the GitHub Actions matrix: 4 jobs, each with its matrix.shard', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const yaml = blocks('yaml').find((block) => block.includes('matrix:')) ?? '';
    const run = /run: (mkdir .*--shard .*)/.exec(yaml)?.[1] ?? '';
    const shards = JSON.parse(/shard: (\[.*\])/.exec(yaml)?.[1] ?? '[]') as number[];
    expect(shards).toEqual([0, 1, 2, 3]);
    const { data, PATH } = workspace();
    const jobs = shards.map((shard) => {
      const job = path.join(data, `job-${shard}`);
      mkdirSync(job);
      writeFileSync(path.join(job, 'dead-plants.txt'), `${ids.join('\n')}\n`);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression, as the workflow writes it
      return shell(run.replaceAll('${{ matrix.shard }}', String(shard)), job, { PATH, ...envFor(server.url), RUNNER_TEMP: job });
    });
    for (const job of await Promise.all(jobs)) expect(job.code).toBe(0);
    expectEachOnce(server.requests);
  });

  it('xargs -P on one machine', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const line = blocks('sh').find((block) => block.startsWith('seq 0 3 | xargs -P')) ?? '';
    const { data, PATH } = workspace();
    const result = await shell(line, data, { PATH, ...envFor(server.url) });
    expect(result.code).toBe(0);
    expectEachOnce(server.requests);
  });

  const HAS_PARALLEL = (() => {
    try {
      execFileSync('sh', ['-c', 'parallel --version | grep -q GNU'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!HAS_PARALLEL)('GNU parallel on one machine', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const line = blocks('sh').find((block) => block.startsWith('parallel -j 4')) ?? '';
    const { data, PATH } = workspace();
    const result = await shell(line, data, { PATH, ...envFor(server.url) });
    expect(result.code).toBe(0);
    expectEachOnce(server.requests);
  });

  it('the four commands at the top of the page', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const lines = (blocks('sh')[0] ?? '').trim().split('\n');
    expect(lines.length).toBe(4);
    const { data, PATH } = workspace();
    const results = await Promise.all(lines.map((line) => shell(line, data, { PATH, ...envFor(server.url) })));
    for (const result of results) expect(result.code).toBe(0);
    expectEachOnce(server.requests);
  });
});
