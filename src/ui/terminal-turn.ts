// Questions at one terminal take turns. Four shards started together by `xargs -P 4` share a
// terminal: asked at once, their four questions would print over each other and the count typed
// would reach whichever shard read it first (then be refused as the wrong count). Each asks only
// while it holds the terminal's turn, so one question is on the screen at a time and the answer
// goes to the process that asked it.
//
// The turn is a Unix socket in Linux's abstract namespace, named after the user and the terminal:
// binding it is exclusive, and the kernel lets it go when its holder exits, however it dies, so
// there is no file to leave behind, to plant a symlink or FIFO at, or to find stale. A process of
// another user that squats the name can only make a question wait (Ctrl-C still stops it); it
// cannot answer one. Elsewhere than Linux, or when no socket can be made, a question is asked at
// once, as before.

import { readFileSync } from 'node:fs';
import net from 'node:net';
import { InterruptedError } from '../errors.js';

/** Gives the turn back: the next question at this terminal is asked. */
export type Release = () => void;

const noTurn: Release = () => {};

/** The controlling terminal's device number (what /dev/tty opens), from /proc; undefined with none. */
function controllingTerminal(): string | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command's name, which may hold spaces and brackets: state ppid pgrp session tty_nr.
    const tty = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[4];
    return tty === undefined || tty === '0' ? undefined : tty;
  } catch {
    return undefined;
  }
}

/** The abstract socket's name for this user at this terminal, or undefined where there is none. */
export function turnName(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const tty = controllingTerminal();
  return tty === undefined ? undefined : `\0plantstore-question-${process.getuid?.() ?? 0}-${tty}`;
}

/**
 * Waits for this terminal's turn and holds it: resolves with the way to give it back. Without
 * a turn to take (not Linux, no terminal, no socket), resolves at once. Rejects with an
 * InterruptedError when `interrupt` fires while waiting.
 */
export async function takeTerminalTurn(interrupt: AbortSignal, name = turnName()): Promise<Release> {
  if (name === undefined) return noTurn;
  // A name bound but not listened on answers every connection with a refusal: after a few, no
  // turn is taken rather than trying again forever. One refusal alone is a holder that left.
  for (let refused = 0; refused < 3; ) {
    if (interrupt.aborted) throw new InterruptedError();
    const held = await bind(name);
    if (held !== 'taken') return held;
    if ((await holderGone(name, interrupt)) === 'refused') refused++;
  }
  return noTurn;
}

/** Binds the name: the turn, 'taken' when another process holds it, or no turn when it cannot be bound. */
function bind(name: string): Promise<Release | 'taken'> {
  return new Promise((resolve) => {
    const server = net.createServer();
    const waiting = new Set<net.Socket>();
    // A process waiting for the turn stays connected until it is given back.
    server.on('connection', (socket) => {
      waiting.add(socket);
      socket.on('close', () => waiting.delete(socket));
      socket.on('error', () => {});
    });
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE' ? 'taken' : noTurn));
    server.listen({ path: name }, () => {
      server.unref();
      resolve(() => {
        server.close();
        for (const socket of waiting) socket.destroy();
      });
    });
  });
}

/**
 * Resolves when the holder gives the turn back or exits (its end of the connection closes), or
 * with 'refused' when no connection could be made (the holder went between our bind and connect).
 */
function holderGone(name: string, interrupt: AbortSignal): Promise<'gone' | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path: name });
    let connected = false;
    const done = (how: 'gone' | 'refused'): void => {
      interrupt.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(how);
    };
    const onAbort = (): void => {
      socket.destroy();
      reject(new InterruptedError());
    };
    socket.once('connect', () => {
      connected = true;
    });
    socket.once('error', () => done(connected ? 'gone' : 'refused'));
    socket.once('close', () => done(connected ? 'gone' : 'refused'));
    socket.on('data', () => {});
    interrupt.addEventListener('abort', onAbort, { once: true });
  });
}
