import { fixedWords, names, valuedNames, type Words } from './plan.js';
import { INSTALL, type Values } from './tree.js';

// Written for bash 3.2 too (macOS): no mapfile, no associative arrays. Candidates
// are filtered with [[ == "$cur"* ]], not compgen -W, which would expand $(...) in them.
export function bash(w: Words): string {
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
      const subCases = subs.map((sub) => `'${sub.sub}') opts+=(${names(sub.own)}) ;;`).join(' ');
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
# Every new shell:   ${INSTALL.bash}

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
    # Before a command, the program's options; after one, only those it reads.
    local -a opts=()
    case $cmd in
      '') opts+=(${names(w.global)}) ;;
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
