import { type Described, fixedWords, valuedNames, type Words } from './plan.js';
import { INSTALL, type Values } from './tree.js';

// fish: one complete line per candidate; conditions come from a walk over the
// words like bash's, since fish's __fish_use_subcommand takes an option's value for a command.
export function fish(w: Words): string {
  const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const offer = (condition: string, list: Described): string =>
    list.map(([name, description]) => `complete -c plantstore -n ${quote(condition)} -a ${name} -d ${quote(description)}`).join('\n');
  const valueFlags = (name: string): string => {
    const values = w.valued.find((entry) => entry.name === name)?.values;
    if (values === undefined) return '';
    if (values.kind === 'files') return ' -r -F';
    if (values.kind === 'profiles') return " -x -a '(plantstore completion --list-profiles 2>/dev/null)'";
    const fixed = fixedWords(values, w);
    return fixed ? ` -x -a ${quote(fixed.join(' '))}` : ' -x';
  };
  const option = (list: Described, condition?: string): string =>
    list
      .map(([name, description]) => {
        const flag = name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`;
        return `complete -c plantstore${condition ? ` -n ${quote(condition)}` : ''} ${flag}${valueFlags(name)} -d ${quote(description)}`;
      })
      .join('\n');
  const fishValues = (condition: string, values: Values): string => {
    if (values.kind === 'files') return `complete -c plantstore -n ${quote(condition)} -F`;
    if (values.kind === 'profiles')
      return `complete -c plantstore -n ${quote(condition)} -a '(plantstore completion --list-profiles 2>/dev/null)'`;
    const fixed = fixedWords(values, w);
    return fixed ? `complete -c plantstore -n ${quote(condition)} -a ${quote(fixed.join(' '))}` : '';
  };
  const lines = [
    offer('__plantstore_at', w.commands),
    ...w.places.flatMap(({ command, first, second }) => [
      first === undefined
        ? ''
        : 'subs' in first
          ? offer(`__plantstore_at ${command}`, first.subs)
          : fishValues(`__plantstore_at ${command}`, first.values),
      ...second.map(({ after, values }) => fishValues(`__plantstore_at ${command} ${after}`, values)),
    ]),
    // Before a command, the program's options; after one, only those it reads.
    option(w.global, '__plantstore_at'),
    ...w.withOptions.flatMap(({ command, own, subs }) => [
      own.length > 0 ? option(own, `__plantstore_in ${command}`) : '',
      ...subs.map((sub) => option(sub.own, sub.sub === '' ? `__plantstore_at ${command}` : `__plantstore_at ${command} ${sub.sub}`)),
    ]),
  ];
  return `# fish completion for plantstore
# This shell only:  plantstore completion fish | source
# Every new shell:  ${INSTALL.fish}

# Prints the words typed before the cursor that are not options or option values.
function __plantstore_positionals
    set -l words (commandline -opc)
    set -e words[1]
    set -l value_of 0
    set -l dashdash 0
    for word in $words
        if test $value_of = 1
            set value_of 0
            continue
        end
        if test $dashdash = 0
            switch $word
                case --
                    set dashdash 1
                    continue
                case ${valuedNames(w).join(' ')}
                    set value_of 1
                    continue
                case '-*'
                    continue
            end
        end
        echo $word
    end
end

# True when the words typed so far (options aside) are exactly the arguments.
function __plantstore_at
    set -l positional (__plantstore_positionals)
    test "$positional" = "$argv"
end

# True when the command typed is the argument.
function __plantstore_in
    set -l positional (__plantstore_positionals)
    test (count $positional) -gt 0; and test "$positional[1]" = "$argv[1]"
end

complete -c plantstore -f
${lines.filter(Boolean).join('\n')}
`;
}
