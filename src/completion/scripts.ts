import { type CompletableOption, type CompletionTree, type Shell, type Values, valueOptions } from './tree.js';

/**
 * Shell completion scripts for `plantstore completion bash|zsh|fish|powershell`,
 * generated from the commander program (completion-tree.ts): every command,
 * subcommand and option the program has is in them, so they cannot drift from it.
 *
 * The scripts are plain text with the word lists written in, so completing never
 * starts Node, except for profile names: those live in the config file, and the
 * scripts ask `plantstore completion --list-profiles` (one name per line) rather
 * than read a file whose format is ours to change.
 */

type Described = ReadonlyArray<readonly [name: string, description: string]>;

/** commander gives every command -h/--help without listing it among the options. */
const HELP: CompletableOption = { names: ['-h', '--help'], description: 'show help', value: undefined };

/** The lists every script is written from. */
interface Words {
  commands: Described;
  global: Described;
  /** Options of a top-level command, and of its subcommands by name. */
  optionsOf: ReadonlyArray<{ command: string; own: Described; subs: ReadonlyArray<{ sub: string; own: Described }> }>;
  subcommandsOf: ReadonlyArray<{ command: string; subs: Described }>;
  /** What the first argument completes to: of a command without subcommands (sub empty), or of a subcommand. */
  argumentsOf: ReadonlyArray<{ command: string; sub: string | undefined; values: Values }>;
  /** Options followed by a value, by spelling, with what the value completes to. */
  valued: ReadonlyArray<{ name: string; values: Values }>;
  /** The commands that take options of their own or have subcommands that do. */
  withOptions: ReadonlyArray<{ command: string; own: Described; subs: ReadonlyArray<{ sub: string; own: Described }> }>;
  /** For each command: what the first word after it completes to, and the word after that, by that first word. */
  places: ReadonlyArray<Place>;
}

interface Place {
  command: string;
  /** Subcommands (with descriptions), or the values of the command's argument. */
  first: { subs: Described } | { values: Values } | undefined;
  second: ReadonlyArray<{ after: string; values: Values }>;
}

function words(tree: CompletionTree): Words {
  const described = (options: readonly CompletableOption[]): Described =>
    options.flatMap((option) => option.names.map((name) => [name, option.description] as const));
  const commands = tree.commands;
  return {
    commands: commands.map((command) => [command.name, command.description] as const),
    global: described([...tree.options, HELP]),
    optionsOf: commands.map((command) => ({
      command: command.name,
      own: described(command.options),
      subs: command.commands.map((sub) => ({ sub: sub.name, own: described(sub.options) })),
    })),
    subcommandsOf: commands
      .filter((command) => command.commands.length > 0)
      .map((command) => ({ command: command.name, subs: command.commands.map((sub) => [sub.name, sub.description] as const) })),
    argumentsOf: commands.flatMap((command) => [
      ...(command.argument && command.commands.length === 0 ? [{ command: command.name, sub: undefined, values: command.argument }] : []),
      ...command.commands.flatMap((sub) => (sub.argument ? [{ command: command.name, sub: sub.name, values: sub.argument }] : [])),
    ]),
    valued: valueOptions(tree).flatMap((option) => option.names.map((name) => ({ name, values: option.value as Values }))),
    withOptions: [],
    places: [],
  };
}

/** Adds what every generator walks the same way: which commands take options, and what each place completes to. */
function planned(w: Words): Words {
  const withOptions = w.optionsOf
    .map(({ command, own, subs }) => ({ command, own, subs: subs.filter((sub) => sub.own.length > 0) }))
    .filter(({ own, subs }) => own.length > 0 || subs.length > 0);
  const places = w.commands.map(([command]): Place => {
    const subs = w.subcommandsOf.find((entry) => entry.command === command)?.subs;
    const own = w.argumentsOf.find((entry) => entry.command === command && entry.sub === undefined)?.values;
    const second =
      own?.kind === 'commands'
        ? // help <command> <TAB>: that command's subcommands.
          w.subcommandsOf.map(({ command: after, subs: s }) => ({
            after,
            values: { kind: 'words' as const, words: s.map(([name]) => name) },
          }))
        : w.argumentsOf
            .filter((entry) => entry.command === command && entry.sub !== undefined)
            .map((entry) => ({ after: entry.sub as string, values: entry.values }));
    return { command, first: subs ? { subs } : own ? { values: own } : undefined, second };
  });
  return { ...w, withOptions, places };
}

export function completionScript(shell: Shell, tree: CompletionTree): string {
  const w = planned(words(tree));
  switch (shell) {
    case 'bash':
      return bash(w);
    case 'zsh':
      return zsh(w);
    case 'fish':
      return fish(w);
    case 'powershell':
      return powershell(w);
  }
}

const names = (list: Described): string => list.map(([name]) => name).join(' ');
const valuedNames = (w: Words): string[] => w.valued.map(({ name }) => name);
/** The fixed words a value completes to: a list, or the command names (`help <TAB>`). */
const fixedWords = (values: Values, w: Words): readonly string[] | undefined =>
  values.kind === 'words' ? values.words : values.kind === 'commands' ? w.commands.map(([name]) => name) : undefined;

// Written for bash 3.2 too (macOS): no mapfile, no associative arrays. Candidates
// are filtered with [[ == "$cur"* ]], not compgen -W, which would expand $(...) in them.
function bash(w: Words): string {
  const valueCases = w.valued
    .map(({ name, values }) => {
      if (values.kind === 'profiles') return `      ${name}) _plantstore_profiles "$cur" ;;`;
      if (values.kind === 'files') return `      ${name}) _plantstore_files "$cur" ;;`;
      const fixed = fixedWords(values, w);
      return fixed ? `      ${name}) _plantstore_add "$cur" ${fixed.join(' ')} ;;` : '';
    })
    .filter(Boolean)
    .join('\n');
  const optionCases = w.withOptions
    .map(({ command, own, subs }) => {
      const subCases = subs.map((sub) => `${sub.sub}) opts+=(${names(sub.own)}) ;;`).join(' ');
      const parts = [own.length > 0 ? `opts+=(${names(own)});` : '', subCases ? `case $sub in ${subCases} esac;` : ''];
      return `      ${command}) ${parts.filter(Boolean).join(' ')} ;;`;
    })
    .join('\n');
  const positionalCases = w.places
    .filter(({ first }) => first !== undefined)
    .map(({ command, first, second }) => {
      const firstWords =
        first && 'subs' in first ? `_plantstore_add "$cur" ${names(first.subs)}` : bashValues((first as { values: Values }).values, w);
      const then =
        second.length > 0
          ? `; elif (( npos == 0 )); then case $sub in ${second.map(({ after, values }) => `${after}) ${bashValues(values, w)} ;;`).join(' ')} esac`
          : '';
      return `    ${command}) if [[ -z $sub ]]; then ${firstWords}${then}; fi ;;`;
    })
    .join('\n');
  return `# bash completion for plantstore
# This shell only:   source <(plantstore completion bash)
# Every new shell:   plantstore completion bash > ~/.local/share/bash-completion/completions/plantstore

# _plantstore_add CUR WORD...: offers the WORDs that start with CUR.
_plantstore_add() {
  local cur=$1 word
  shift
  for word in "$@"; do
    [[ $word == "$cur"* ]] && COMPREPLY+=("$word")
  done
  return 0
}

# _plantstore_profiles CUR [PREFIX]: offers profile names starting with CUR, each after PREFIX.
_plantstore_profiles() {
  local name
  while IFS= read -r name; do
    [[ -n $name && $name == "$1"* ]] && COMPREPLY+=("\${2-}$name")
  done < <(plantstore completion --list-profiles 2>/dev/null)
  return 0
}

# _plantstore_files CUR: offers file and folder names starting with CUR.
_plantstore_files() {
  local name
  compopt -o filenames 2>/dev/null
  while IFS= read -r name; do
    COMPREPLY+=("$name")
  done < <(compgen -f -- "$1")
  return 0
}

_plantstore() {
  COMPREPLY=()
  local -a words
  local cword
  if (( \${COMP_CWORD:--1} >= 0 )); then
    words=("\${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  else
    # compgen -F _plantstore -- WORD: bash passes WORD as $2 and sets COMP_CWORD to -1.
    # WORD follows the caller's COMP_WORDS, if any, unless it is already their last word.
    words=("\${COMP_WORDS[@]}")
    (( \${#words[@]} > 0 )) || words=(plantstore)
    [[ \${#words[@]} -gt 1 && \${words[\${#words[@]}-1]} == "\${2-}" ]] || words+=("\${2-}")
    cword=$(( \${#words[@]} - 1 ))
  fi
  local cur=\${words[cword]} word cmd= sub= value_of= dashdash= npos=0 i
  for (( i = 1; i < cword; i++ )); do
    word=\${words[i]}
    if [[ -n $value_of ]]; then
      # "--profile=x" arrives as "--profile" "=" "x" when = is in COMP_WORDBREAKS.
      [[ $word == = ]] || value_of=
      continue
    fi
    if [[ -z $dashdash ]]; then
      case $word in
        --) dashdash=1; continue ;;
        ${valuedNames(w).join('|')}) value_of=$word; continue ;;
        -*) continue ;;
      esac
    fi
    if [[ -z $cmd ]]; then
      cmd=$word
    elif [[ -z $sub ]]; then
      sub=$word
    else
      npos=$(( npos + 1 ))
    fi
  done

  if [[ -n $value_of ]]; then
    [[ $cur == = ]] && cur=
    case $value_of in
${valueCases}
    esac
    return 0
  fi
  if [[ -z $dashdash && $cur == --profile=* ]]; then
    _plantstore_profiles "\${cur#--profile=}" --profile=
    return 0
  fi
  if [[ -z $dashdash && $cur == -* ]]; then
    local -a opts=(${names(w.global)})
    case $cmd in
${optionCases}
    esac
    _plantstore_add "$cur" "\${opts[@]}"
    return 0
  fi
  case $cmd in
    '') _plantstore_add "$cur" ${names(w.commands)} ;;
${positionalCases}
  esac
  return 0
}

complete -F _plantstore plantstore
`;
}

function bashValues(values: Values, w: Words): string {
  if (values.kind === 'profiles') return '_plantstore_profiles "$cur"';
  if (values.kind === 'files') return '_plantstore_files "$cur"';
  const fixed = fixedWords(values, w);
  return fixed ? `_plantstore_add "$cur" ${fixed.join(' ')}` : ':';
}

// zsh: the same walk over the words as bash, with descriptions through _describe.
function zsh(w: Words): string {
  const described = (list: Described): string =>
    list.map(([name, description]) => `'${name.replace(/:/g, '\\:')}:${description.replace(/'/g, "'\\''")}'`).join(' ');
  const zshValues = (values: Values): string => {
    if (values.kind === 'profiles') return '_plantstore_profiles';
    if (values.kind === 'files') return '_files';
    const fixed = fixedWords(values, w);
    return fixed ? `compadd -- ${fixed.join(' ')}` : ':';
  };
  const valueCases = w.valued.map(({ name, values }) => `      (${name}) ${zshValues(values)} ;;`).join('\n');
  const optionCases = w.withOptions
    .map(({ command, own, subs }) => {
      const subCases = subs.map((sub) => `(${sub.sub}) candidates+=(${described(sub.own)}) ;;`).join(' ');
      const parts = [own.length > 0 ? `candidates+=(${described(own)});` : '', subCases ? `case $sub in ${subCases} esac;` : ''];
      return `      (${command}) ${parts.filter(Boolean).join(' ')} ;;`;
    })
    .join('\n');
  const positionalCases = w.places
    .filter(({ first }) => first !== undefined)
    .map(({ command, first, second }) => {
      const firstWords =
        first && 'subs' in first
          ? `candidates=(${described(first.subs)}); _describe -t commands '${command} command' candidates`
          : zshValues((first as { values: Values }).values);
      const then =
        second.length > 0
          ? `; elif (( \${#positional} == 2 )); then case $sub in ${second.map(({ after, values }) => `(${after}) ${zshValues(values)} ;;`).join(' ')} esac`
          : '';
      return `    (${command}) if (( \${#positional} == 1 )); then ${firstWords}${then}; fi ;;`;
    })
    .join('\n');
  return `#compdef plantstore
# zsh completion for plantstore
# This shell only (after compinit):  source <(plantstore completion zsh)
# Every new shell:  plantstore completion zsh > "\${fpath[1]}/_plantstore"  (then start a new zsh)

_plantstore_profiles() {
  local -a profiles
  profiles=(\${(f)"$(plantstore completion --list-profiles 2>/dev/null)"})
  compadd -- $profiles
}

_plantstore() {
  local -a positional candidates
  local word value_of= dashdash= cur=\${words[CURRENT]}
  local -i i
  for (( i = 2; i < CURRENT; i++ )); do
    word=\${words[i]}
    if [[ -n $value_of ]]; then
      value_of=
      continue
    fi
    if [[ -z $dashdash ]]; then
      case $word in
        (--) dashdash=1; continue ;;
        (${valuedNames(w).join('|')}) value_of=$word; continue ;;
        (-*) continue ;;
      esac
    fi
    positional+=("$word")
  done
  local cmd=\${positional[1]-} sub=\${positional[2]-}

  if [[ -n $value_of ]]; then
    case $value_of in
${valueCases}
    esac
    return 0
  fi
  if [[ -z $dashdash && $cur == --profile=* ]]; then
    compset -P '--profile='
    _plantstore_profiles
    return 0
  fi
  if [[ -z $dashdash && $cur == -* ]]; then
    candidates=(${described(w.global)})
    case $cmd in
${optionCases}
    esac
    _describe -t options 'plantstore option' candidates
    return 0
  fi
  case $cmd in
    ('')
      candidates=(${described(w.commands)})
      _describe -t commands 'plantstore command' candidates ;;
${positionalCases}
  esac
  return 0
}

# From fpath this file is the body of _plantstore: define, then complete. Sourced, it registers.
if [[ \${funcstack[1]-} == _plantstore ]]; then
  _plantstore "$@"
elif (( $+functions[compdef] )); then
  compdef _plantstore plantstore
else
  print -u2 "plantstore completion: run 'autoload -Uz compinit && compinit' before loading this script"
fi
`;
}

// fish: one complete line per candidate; conditions come from a walk over the
// words like bash's, since fish's __fish_use_subcommand takes an option's value for a command.
function fish(w: Words): string {
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
    option(w.global),
    ...w.withOptions.flatMap(({ command, own, subs }) => [
      own.length > 0 ? option(own, `__plantstore_in ${command}`) : '',
      ...subs.map((sub) => option(sub.own, `__plantstore_at ${command} ${sub.sub}`)),
    ]),
  ];
  return `# fish completion for plantstore
# This shell only:  plantstore completion fish | source
# Every new shell:  plantstore completion fish > ~/.config/fish/completions/plantstore.fish

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

// PowerShell: a native argument completer doing the same walk over the words.
function powershell(w: Words): string {
  const list = (values: readonly string[]): string => `@(${values.map((value) => `'${value.replace(/'/g, "''")}'`).join(', ')})`;
  const psValues = (values: Values): string => {
    if (values.kind === 'profiles') return '$candidates = @(plantstore completion --list-profiles 2>$null)';
    if (values.kind === 'files') return '$files = $true';
    const fixed = fixedWords(values, w);
    return fixed ? `$candidates = ${list(fixed)}` : '';
  };
  const valueCases = w.valued.map(({ name, values }) => `      '${name}' { ${psValues(values)} }`).join('\n');
  const optionCases = w.withOptions
    .map(({ command, own, subs }) => {
      const subCases = subs.map((sub) => `'${sub.sub}' { $candidates += ${list(sub.own.map(([name]) => name))} }`).join(' ');
      const parts = [
        own.length > 0 ? `$candidates += ${list(own.map(([name]) => name))};` : '',
        subCases ? `switch ($sub) { ${subCases} }` : '',
      ];
      return `      '${command}' { ${parts.filter(Boolean).join(' ')} }`;
    })
    .join('\n');
  const positionalCases = w.places
    .filter(({ first }) => first !== undefined)
    .map(({ command, first, second }) => {
      const firstWords =
        first && 'subs' in first
          ? `$candidates = ${list(first.subs.map(([name]) => name))}`
          : psValues((first as { values: Values }).values);
      const then =
        second.length > 0
          ? ` elseif ($positional.Count -eq 2) { switch ($sub) { ${second.map(({ after, values }) => `'${after}' { ${psValues(values)} }`).join(' ')} } }`
          : '';
      return `      '${command}' { if ($positional.Count -eq 1) { ${firstWords} }${then} }`;
    })
    .join('\n');
  return `# PowerShell completion for plantstore
# This session only:  plantstore completion powershell | Out-String | Invoke-Expression
# Every session:      plantstore completion powershell >> $PROFILE

Register-ArgumentCompleter -Native -CommandName plantstore -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $valued = ${list(valuedNames(w))}
  $typed = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
  if ($wordToComplete -ne '' -and $typed.Count -gt 0) { $typed = @($typed | Select-Object -First ($typed.Count - 1)) }
  $positional = @()
  $valueOf = $null
  $dashdash = $false
  foreach ($word in $typed) {
    if ($valueOf) { $valueOf = $null; continue }
    if (-not $dashdash) {
      if ($word -eq '--') { $dashdash = $true; continue }
      if ($valued -contains $word) { $valueOf = $word; continue }
      if ($word.StartsWith('-')) { continue }
    }
    $positional += $word
  }
  $cmd = if ($positional.Count -ge 1) { $positional[0] } else { '' }
  $sub = if ($positional.Count -ge 2) { $positional[1] } else { '' }
  $candidates = @()
  $files = $false
  if ($valueOf) {
    switch ($valueOf) {
${valueCases}
    }
  } elseif (-not $dashdash -and $wordToComplete.StartsWith('-')) {
    $candidates = ${list(w.global.map(([name]) => name))}
    switch ($cmd) {
${optionCases}
    }
  } elseif ($cmd -eq '') {
    $candidates = ${list(w.commands.map(([name]) => name))}
  } else {
    switch ($cmd) {
${positionalCases}
    }
  }
  if ($files) {
    Get-ChildItem -Path "$wordToComplete*" -ErrorAction SilentlyContinue | ForEach-Object {
      [System.Management.Automation.CompletionResult]::new($_.Name, $_.Name, 'ProviderItem', $_.Name)
    }
    return
  }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`;
}
