#!/bin/sh
# Writes gpubench's bash completion from the binary's own --help texts (its commands, each
# command's options) and the profiles of configs/ (the build runs it: scripts/meson.build).
# An option's values complete too where its help line lists them: a value name of choices
# ("-l, --level 1|2|3"), and -f/--format's "one of this build's formats:" on the line after it.
#   scripts/gen-completion.sh GPUBENCH CONFIGS-DIR OUT
set -eu
exe=$1 configs=$2 out=$3
cmds=$("$exe" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | tr '\n' ' ')
profiles=$(cd "$configs" && ls -- *.yaml | sed 's/\.yaml$//' | tr '\n' ' ')
{
  printf '# bash completion for gpubench: generated at build time (scripts/gen-completion.sh)\n'
  printf '_gpubench() {\n'
  printf '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts= vals=\n'
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
  # The values of the options that name them, by command and option ("diag --level").
  printf '    case "${COMP_WORDS[1]} $prev" in\n'
  for c in $cmds; do
    help=$("$exe" "$c" --help)
    # "  -l, --level 1|2|3   ..." -> "-l --level|1 2 3"
    printf '%s\n' "$help" |
      sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z0-9-]*\) \([A-Za-z0-9_.-]*|[A-Za-z0-9_.|-]*\) .*/\1\2|\3/p' |
      while IFS='|' read -r names values; do
        printf '    %s) vals="%s" ;;\n' "$(printf '%s' "$names" | tr -d ',' |
          sed "s/\([^ ][^ ]*\)/'$c \1'/g; s/' '/' | '/g")" "$(printf '%s' "$values" | tr '|' ' ')"
      done
    formats=$(printf '%s\n' "$help" | sed -n '/--format NAME .*formats:$/{n;s/^ *//;s/,//g;s/ or / /;p;}')
    if [ -n "$formats" ]; then
      printf "    '%s -f' | '%s --format') vals=\"%s\" ;;\n" "$c" "$c" "$formats"
    fi
  done
  printf '    esac\n'
  printf '    if [ -n "$vals" ]; then\n'
  printf '        COMPREPLY=($(compgen -W "$vals" -- "$cur"))\n'
  printf '        return\n    fi\n'
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
