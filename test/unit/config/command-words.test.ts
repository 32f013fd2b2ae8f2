// A token command line is split into words as a POSIX shell splits them, and never run through
// one. The expected words below are what dash and bash give for the same line (`printf '[%s]'`),
// except the refusals: where a shell would expand, pipe or redirect, the line is refused.
import { describe, expect, it } from 'vitest';
import { CommandLineProblem, joinWords, splitWords } from '../../../src/config/command-words.js';
import { thrown } from '../../helpers/thrown.js';

describe('splitWords', () => {
  it.each<[string, string[]]>([
    ['pass show plantstore', ['pass', 'show', 'plantstore']],
    ['  pass\tshow  plantstore  ', ['pass', 'show', 'plantstore']],
    ['op read op://vault/plantstore/token', ['op', 'read', 'op://vault/plantstore/token']],
    ['vault kv get -field=token secret/plantstore', ['vault', 'kv', 'get', '-field=token', 'secret/plantstore']],
    ["sh -c 'pass show x | head -n 1'", ['sh', '-c', 'pass show x | head -n 1']],
    // Single quotes: everything literal, backslashes and double quotes included.
    ["'a\\b\"c $HOME'", ['a\\b"c $HOME']],
    // Double quotes: a backslash escapes only " \ $ ` and newline, and stays before anything else.
    ['"a\\"b"', ['a"b']],
    ['"a\\\\b"', ['a\\b']],
    ['"a\\$b"', ['a$b']],
    ['"a\\`b"', ['a`b']],
    ['"a\\nb"', ['a\\nb']],
    ['"a\\\nb"', ['ab']],
    ['"it\'s"', ["it's"]],
    ['"a | b; c > d * ~ #"', ['a | b; c > d * ~ #']],
    // Outside quotes: a backslash takes the next character as is; backslash-newline joins lines.
    ['a\\ b', ['a b']],
    ['a\\|b', ['a|b']],
    ['\\$HOME', ['$HOME']],
    ['\\~/bin/token', ['~/bin/token']],
    ['a\\\nb', ['ab']],
    ['a \\\n b', ['a', 'b']],
    // Quotes join the pieces of one word; an empty pair of quotes is an empty word.
    ['a"b c"\'d e\'f', ['ab cd ef']],
    ["tool ''", ['tool', '']],
    ['tool "" x', ['tool', '', 'x']],
    // Only at the start of a word are ~ and # special.
    ['tool a~b a#b', ['tool', 'a~b', 'a#b']],
    ['tool "~" \'#\'', ['tool', '~', '#']],
    ['tool é ü 令牌', ['tool', 'é', 'ü', '令牌']],
  ])('%j', (line, words) => {
    expect(splitWords(line)).toEqual(words);
  });

  it.each<[string, RegExp]>([
    ["pass 'show", /single quote is never closed/],
    ['pass "show', /double quote is never closed/],
    ['pass "show\\"', /double quote is never closed/],
    ['pass show\\', /lone backslash/],
    ['pass show\nplantstore', /line break outside quotes/],
    ['', /empty/],
    [' \t ', /empty/],
    ['pass show x | head -1', /unquoted \| means nothing.*sh -c/],
    ['get-token > /tmp/t', /unquoted > means nothing/],
    ['get-token < /tmp/t', /unquoted < means nothing/],
    ['a; b', /unquoted ; means nothing/],
    ['a && b', /unquoted & means nothing/],
    ['get-token &', /unquoted & means nothing/],
    ['vault read $SECRET', /unquoted \$ means nothing/],
    ['echo `id`', /unquoted ` means nothing/],
    ['(get-token)', /unquoted \( means nothing/],
    ['tool "$HOME"', /expand the \$ inside double quotes; write \\\$/],
    ['tool "`id`"', /expand the ` inside double quotes/],
    ['cat token*', /unquoted \* would match file names/],
    ['cat token?', /unquoted \? would match file names/],
    ['cat [ab]', /unquoted \[ would match file names/],
    ['~/bin/get-token', /begins with an unquoted ~.*full path/],
    ['get-token # comment', /begins with an unquoted #.*comments/],
  ])('refuses %j', (line, message) => {
    const error = thrown(() => splitWords(line));
    expect(error).toBeInstanceOf(CommandLineProblem);
    expect((error as Error).message).toMatch(message);
  });
});

describe('joinWords', () => {
  it.each<[string[], string]>([
    [['pass', 'show', 'plantstore'], 'pass show plantstore'],
    [['sh', '-c', 'pass x | head -1'], "sh -c 'pass x | head -1'"],
    [['tool', "it's"], "tool 'it'\\''s'"],
    [['tool', ''], "tool ''"],
    [['tool', '$HOME', '~', '*'], "tool '$HOME' '~' '*'"],
  ])('%j', (words, line) => {
    expect(joinWords(words)).toBe(line);
    // What an error message names is a command line that means the same words.
    expect(splitWords(line)).toEqual(words);
  });
});
