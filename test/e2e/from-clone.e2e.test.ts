// A clone before its first build (issue 29 item 6): the launcher says how to build, in one
// line, instead of Node's ERR_MODULE_NOT_FOUND stack trace. The launcher is copied into a
// folder with no dist/, as a fresh clone has it.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';

const clone = mkdtempSync(path.join(tmpdir(), 'plantstore-clone-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));
mkdirSync(path.join(clone, 'bin'));
copyFileSync(BIN, path.join(clone, 'bin', 'plantstore.js'));
writeFileSync(path.join(clone, 'package.json'), '{"type":"module"}\n');

async function unbuilt(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(clone, 'bin', 'plantstore.js'), ...args], {
      env: cleanEnv(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const LINE = `plantstore is not built (no ${clone}/dist/main.js): run npm run build in ${clone}\n`;

it('says how to build, in one line, exit 70: no stack trace', async () => {
  const result = await unbuilt(['delete', '1']);
  expect(result).toEqual({ code: 70, stdout: '', stderr: LINE });
});

it('with --json, also the one JSON object on stdout', async () => {
  const result = await unbuilt(['--json', 'delete', '1']);
  expect(result.code).toBe(70);
  expect(JSON.parse(result.stdout)).toEqual({ deleted: false, exit: 70, message: LINE.trimEnd() });
  expect(result.stderr).toBe(LINE);
});
