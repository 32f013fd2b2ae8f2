// Shards as real processes against one loopback server that records every request: N runs given
// the same list (each in its own order, with repeats) delete every id exactly once; a dry run
// lists exactly its part; a journal keeps its shard; and the documented examples (docs/shards.md)
// run as written, with the variables Kubernetes, GitHub Actions and xargs would set.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partOf } from '../../src/engine/shard.js';
import { idOf, idRange } from '../helpers/batch-output.js';
import { finished, plantstoreOnPath, ROOT, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';

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
  expect(over.stderr).toContain(`refusing: ${mine} plants to delete`);
  const within = await runPlantstore(['delete', '--shard', '0/2', '--max-deletes', String(mine), ...ids], { env: envFor(server.url) });
  expect(within.code).toBe(0);
  expect(server.requests.length).toBe(mine);
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
  const ids = idRange(1, 240);

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

  it('the Kubernetes Indexed Job: 8 pods, each with its JOB_COMPLETION_INDEX', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const yaml = blocks('yaml').find((block) => block.includes('completionMode: Indexed')) ?? '';
    const command = JSON.parse(/command: (\[.*\])/.exec(yaml)?.[1] ?? '[]') as string[];
    expect(command.slice(0, 2)).toEqual(['sh', '-c']);
    const completions = Number(/completions: (\d+)/.exec(yaml)?.[1]);
    expect(completions).toBe(8);
    const { data, PATH } = workspace();
    const env = { PATH, ...envFor(server.url) };
    const pods = Array.from({ length: completions }, (_, index) =>
      // Kubernetes writes $(JOB_COMPLETION_INDEX) in a command as the variable's value, and sets the variable.
      shell((command[2] ?? '').replaceAll('$(JOB_COMPLETION_INDEX)', String(index)), data, { ...env, JOB_COMPLETION_INDEX: String(index) }),
    );
    for (const pod of await Promise.all(pods)) expect(pod.code).toBe(0);
    expectEachOnce(server.requests);
    expect(readFileSync(path.join(data, 'dead-plants-7.journal'), 'utf8')).toContain('"shard":"7/8"');
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
