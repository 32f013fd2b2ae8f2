import { fixedWords, valuedNames, type Words } from './plan.js';
import type { Values } from './tree.js';

// PowerShell: a native argument completer doing the same walk over the words.
export function powershell(w: Words): string {
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
    # Before a command, the program's options; after one, only those it reads.
    switch ($cmd) {
      '' { $candidates = ${list(w.global.map(([name]) => name))} }
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
