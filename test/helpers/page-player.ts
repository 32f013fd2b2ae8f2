// Plays a page's steps (test/helpers/page-steps.ts) in one shell (test/helpers/shell-session.ts),
// in order, and says where the page and the terminal disagree: a console command that prints
// other lines or ends with another code than shown, an sh command or a setup step that does
// not end as its page says. Every step runs even after a failure, as a reader would go on.
import { matchesShown, type PageStep } from './page-steps.js';
import type { ShellSession, StepResult } from './shell-session.js';

/** A hang guard that names the step, not a speed limit: a test's own timeout would name none. */
export const STEP_HANG_MS = 20_000;

/** Each disagreement, as `line N: …`, in page order; none when the page runs as written. */
export async function playPage(
  steps: readonly PageStep[],
  shell: ShellSession,
  here: (text: string) => string = (text) => text,
): Promise<string[]> {
  const failures: string[] = [];
  for (const step of steps) {
    const where = `line ${step.line}: ${step.kind === 'console' ? '$ ' : ''}${step.command}`;
    const command = here(step.command);
    const ran = await ended(step.kind === 'console' && step.tty ? shell.onTerminal(command) : shell.run(command), where);
    const printed = ran.lines.length === 0 ? ' nothing' : `\n${indent(ran.lines)}`;
    if (step.kind === 'console') {
      const expected = step.output.map(here);
      if (!matchesShown(expected, ran.lines)) failures.push(`${where}\n  the page shows:\n${indent(expected)}\n  it printed:${printed}`);
      if (ran.exit !== step.exit) failures.push(`${where}\n  exit ${ran.exit}, the page says ${step.exit}`);
      continue;
    }
    const exit = step.kind === 'sh' ? step.exit : 0;
    if (ran.exit !== exit) failures.push(`${where}\n  exit ${ran.exit}, the page says ${exit}; it printed:${printed}`);
  }
  return failures;
}

const indent = (lines: readonly string[]): string => lines.map((line) => `    ${line}`).join('\n');

function ended(running: Promise<StepResult>, where: string): Promise<StepResult> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`${where}: still running after ${STEP_HANG_MS / 1000} s (in the foreground? mark its block <!-- not run: REASON -->)`),
        ),
      STEP_HANG_MS,
    );
  });
  return Promise.race([running, hung]).finally(() => clearTimeout(timer));
}
