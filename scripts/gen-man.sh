#!/bin/sh
# Writes a man page from a command's --help: the build runs it for gpubench and each command
# (meson.build, scripts/meson.build), so that the pages say what the binary says.
#   scripts/gen-man.sh GPUBENCH COMMAND|'' VERSION OUT.1
set -eu
exe=$1 cmd=$2 version=$3 out=$4
if [ -n "$cmd" ]; then
  name="gpubench-$cmd"
  help=$("$exe" "$cmd" --help)
  summary=$("$exe" --help | sed -n "s/^  $cmd  *//p" | head -n 1)
else
  name=gpubench
  help=$("$exe" --help)
  summary="a GPU benchmarking suite"
fi
upper=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
{
  printf '.TH %s 1 "" "gpubench %s" "gpubench manual"\n' "$upper" "$version"
  printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s' "$summary" | sed 's/\\/\\e/g; s/-/\\-/g')"
  printf '.SH DESCRIPTION\n'
  printf 'The text of \\fBgpubench%s \\-\\-help\\fR:\n.PP\n.nf\n' "${cmd:+ $cmd}"
  # troff: a backslash is \e; a line that starts with '.' or "'" would be a request.
  printf '%s\n' "$help" | sed "s/\\\\/\\\\e/g; s/^\\([.']\\)/\\\\\\&\\1/"
  printf '.fi\n'
  printf '.SH SEE ALSO\n'
  if [ -n "$cmd" ]; then
    printf '\\fBgpubench\\fR(1); the documentation in /usr/share/doc/gpubench (docs/commands.md)\n'
  else
    printf 'each command'"'"'s page, \\fBgpubench\\-run\\fR(1) and so on; docs/commands.md\n'
  fi
} >"$out.tmp"
mv "$out.tmp" "$out"
