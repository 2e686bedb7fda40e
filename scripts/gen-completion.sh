#!/bin/sh
# Writes gpubench's bash completion from the binary's own --help texts (its commands, each
# command's options) and the profiles of configs/ (the build runs it: scripts/meson.build).
#   scripts/gen-completion.sh GPUBENCH CONFIGS-DIR OUT
set -eu
exe=$1 configs=$2 out=$3
cmds=$("$exe" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | tr '\n' ' ')
profiles=$(cd "$configs" && ls -- *.yaml | sed 's/\.yaml$//' | tr '\n' ' ')
{
  printf '# bash completion for gpubench: generated at build time (scripts/gen-completion.sh)\n'
  printf '_gpubench() {\n'
  printf '    local cur=${COMP_WORDS[COMP_CWORD]} opts=\n'
  printf '    if [ "$COMP_CWORD" -eq 1 ]; then\n'
  printf '        COMPREPLY=($(compgen -W "%s--help --version" -- "$cur"))\n' "$cmds"
  printf '        return\n    fi\n'
  printf '    case ${COMP_WORDS[1]} in\n'
  for c in $cmds; do
    opts=$("$exe" "$c" --help | grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' | sed 's/^[ ,]//' |
           sort -u | tr '\n' ' ')
    printf '    %s) opts="%s--help" ;;\n' "$c" "$opts"
  done
  printf '    esac\n'
  printf '    if [[ $cur == -* ]]; then\n'
  printf '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))\n'
  printf '        return\n    fi\n'
  printf '    case ${COMP_WORDS[1]} in\n'
  printf '    run | validate | calibrate)\n'
  printf '        COMPREPLY=($(compgen -W "%s" -- "$cur") $(compgen -f -- "$cur")) ;;\n' "$profiles"
  printf '    *) COMPREPLY=($(compgen -f -- "$cur")) ;;\n'
  printf '    esac\n'
  printf '}\n'
  printf 'complete -o filenames -F _gpubench gpubench\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
