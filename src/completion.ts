/**
 * Shell completion scripts for `plantstore completion bash|zsh|fish`.
 *
 * The scripts are plain text with the word lists below written in, so completing
 * never starts Node, except for profile names: those live in the config file, and
 * the scripts ask `plantstore completion --list-profiles` (one name per line) rather
 * than read a file whose format is ours to change.
 */

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

type Described = ReadonlyArray<readonly [name: string, description: string]>;

const COMMANDS: Described = [
  ['delete', 'delete plants by id'],
  ['auth', 'manage the stored bearer token'],
  ['config', 'read and write profile settings'],
  ['sandbox', 'run a local Plant Store server'],
  ['completion', 'print a shell completion script'],
  ['help', 'show help for a command'],
];
const AUTH_COMMANDS: Described = [
  ['login', 'store a token'],
  ['logout', 'remove the stored token'],
  ['status', 'show where the token and base URL come from'],
  ['token', 'print the token'],
];
const CONFIG_COMMANDS: Described = [
  ['get', 'print a setting'],
  ['set', 'store a setting'],
  ['unset', 'remove a setting'],
  ['list', 'print the settings of the profile'],
  ['path', 'print the config file location'],
];
/** config subcommands whose first argument is a key. */
const KEYED = ['get', 'set', 'unset'];
const CONFIG_KEYS: Described = [['base-url', 'service base URL']];
const GLOBAL_OPTIONS: Described = [
  ['--profile', 'use a named profile'],
  ['--base-url', 'service base URL'],
  ['--json', 'write JSON to stdout'],
  ['--quiet', 'print nothing on success'],
  ['-q', 'print nothing on success'],
  ['--no-color', 'never use color'],
  ['--timeout', 'request timeout in seconds'],
  ['--verbose', 'trace requests to stderr'],
  ['--help', 'show help'],
  ['--version', 'print the version'],
];
const DELETE_OPTIONS: Described = [
  ['--stdin', 'read ids from standard input'],
  ['--concurrency', 'requests in flight at once'],
  ['--ignore-missing', 'count 404 as deleted'],
  ['--fail-fast', 'send nothing more after a failure'],
  ['--dry-run', 'check the ids, send nothing'],
];
const LOGIN_OPTIONS: Described = [['--with-token', 'read the token from standard input']];
const SANDBOX_OPTIONS: Described = [
  ['--port', 'port to listen on'],
  ['--host', 'address to listen on'],
  ['--token', 'bearer token the sandbox accepts'],
  ['--plants', 'number of plants to start with'],
];
/** Options followed by a value: the word after one is never a command. */
const VALUE_OPTIONS = ['--profile', '--base-url', '--timeout', '--concurrency', '--port', '--host', '--token', '--plants'];

const names = (list: Described): string => list.map(([name]) => name).join(' ');

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return bash();
    case 'zsh':
      return zsh();
    case 'fish':
      return fish();
  }
}

// Written for bash 3.2 too (macOS): no mapfile, no associative arrays. Candidates
// are filtered with [[ == "$cur"* ]], not compgen -W, which would expand $(...) in them.
function bash(): string {
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
        ${VALUE_OPTIONS.join('|')}) value_of=$word; continue ;;
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
    [[ $value_of == --profile ]] && _plantstore_profiles "$cur"
    return 0
  fi
  if [[ -z $dashdash && $cur == --profile=* ]]; then
    _plantstore_profiles "\${cur#--profile=}" --profile=
    return 0
  fi
  if [[ -z $dashdash && $cur == -* ]]; then
    local -a opts=(${names(GLOBAL_OPTIONS)})
    case $cmd in
      delete) opts+=(${names(DELETE_OPTIONS)}) ;;
      sandbox) opts+=(${names(SANDBOX_OPTIONS)}) ;;
      auth) [[ $sub == login ]] && opts+=(${names(LOGIN_OPTIONS)}) ;;
    esac
    _plantstore_add "$cur" "\${opts[@]}"
    return 0
  fi
  case $cmd in
    '') _plantstore_add "$cur" ${names(COMMANDS)} ;;
    help) [[ -z $sub ]] && _plantstore_add "$cur" ${names(COMMANDS)} ;;
    auth) [[ -z $sub ]] && _plantstore_add "$cur" ${names(AUTH_COMMANDS)} ;;
    completion) [[ -z $sub ]] && _plantstore_add "$cur" ${SHELLS.join(' ')} ;;
    config)
      if [[ -z $sub ]]; then
        _plantstore_add "$cur" ${names(CONFIG_COMMANDS)}
      elif (( npos == 0 )); then
        case $sub in
          ${KEYED.join('|')}) _plantstore_add "$cur" ${names(CONFIG_KEYS)} ;;
        esac
      fi
      ;;
  esac
  return 0
}

complete -F _plantstore plantstore
`;
}

// zsh: the same walk over the words as bash, with descriptions through _describe.
function zsh(): string {
  const described = (list: Described): string =>
    list.map(([name, description]) => `'${name.replace(/:/g, '\\:')}:${description}'`).join(' ');
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
        (${VALUE_OPTIONS.join('|')}) value_of=$word; continue ;;
        (-*) continue ;;
      esac
    fi
    positional+=("$word")
  done
  local cmd=\${positional[1]-} sub=\${positional[2]-}

  if [[ -n $value_of ]]; then
    [[ $value_of == --profile ]] && _plantstore_profiles
    return 0
  fi
  if [[ -z $dashdash && $cur == --profile=* ]]; then
    compset -P '--profile='
    _plantstore_profiles
    return 0
  fi
  if [[ -z $dashdash && $cur == -* ]]; then
    candidates=(${described(GLOBAL_OPTIONS)})
    case $cmd in
      (delete) candidates+=(${described(DELETE_OPTIONS)}) ;;
      (sandbox) candidates+=(${described(SANDBOX_OPTIONS)}) ;;
      (auth) [[ $sub == login ]] && candidates+=(${described(LOGIN_OPTIONS)}) ;;
    esac
    _describe -t options 'plantstore option' candidates
    return 0
  fi
  case $cmd in
    ('')
      candidates=(${described(COMMANDS)})
      _describe -t commands 'plantstore command' candidates ;;
    (help)
      (( \${#positional} == 1 )) && candidates=(${described(COMMANDS)}) && _describe -t commands 'plantstore command' candidates ;;
    (auth)
      (( \${#positional} == 1 )) && candidates=(${described(AUTH_COMMANDS)}) && _describe -t commands 'auth command' candidates ;;
    (config)
      if (( \${#positional} == 1 )); then
        candidates=(${described(CONFIG_COMMANDS)})
        _describe -t commands 'config command' candidates
      elif (( \${#positional} == 2 )) && [[ $sub == (${KEYED.join('|')}) ]]; then
        candidates=(${described(CONFIG_KEYS)})
        _describe -t keys 'config key' candidates
      fi
      ;;
    (completion)
      (( \${#positional} == 1 )) && compadd -- ${SHELLS.join(' ')} ;;
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
function fish(): string {
  const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const offer = (condition: string, list: Described): string =>
    list.map(([name, description]) => `complete -c plantstore -n ${quote(condition)} -a ${name} -d ${quote(description)}`).join('\n');
  const option = (list: Described, condition?: string): string =>
    list
      .map(([name, description]) => {
        const flag = name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`;
        const value = VALUE_OPTIONS.includes(name) ? ' -x' : '';
        const profiles = name === '--profile' ? " -a '(plantstore completion --list-profiles 2>/dev/null)'" : '';
        return `complete -c plantstore${condition ? ` -n ${quote(condition)}` : ''} ${flag}${value}${profiles} -d ${quote(description)}`;
      })
      .join('\n');
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
                case ${VALUE_OPTIONS.join(' ')}
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
${offer('__plantstore_at', COMMANDS)}
${offer(
  '__plantstore_at help',
  COMMANDS.filter(([name]) => name !== 'help'),
)}
${offer('__plantstore_at auth', AUTH_COMMANDS)}
${offer('__plantstore_at config', CONFIG_COMMANDS)}
${offer(KEYED.map((sub) => `__plantstore_at config ${sub}`).join('; or '), CONFIG_KEYS)}
complete -c plantstore -n '__plantstore_at completion' -a '${SHELLS.join(' ')}'
${option(GLOBAL_OPTIONS)}
${option(DELETE_OPTIONS, '__plantstore_in delete')}
${option(SANDBOX_OPTIONS, '__plantstore_in sandbox')}
${option(LOGIN_OPTIONS, '__plantstore_at auth login')}
`;
}
