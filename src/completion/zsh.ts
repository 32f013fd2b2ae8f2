import { type Described, fixedWords, valuedNames, type Words } from './plan.js';
import type { Values } from './tree.js';

// zsh: the same walk over the words as bash, with descriptions through _describe.
export function zsh(w: Words): string {
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
      const subCases = subs.map((sub) => `('${sub.sub}') candidates+=(${described(sub.own)}) ;;`).join(' ');
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
    # Before a command, the program's options; after one, only those it reads.
    candidates=()
    case $cmd in
      ('') candidates+=(${described(w.global)}) ;;
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
