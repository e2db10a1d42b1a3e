#!/usr/bin/env bash
# Checks that every repository path the documentation cites exists.
#
#   tests/docs_paths.sh [SOURCE_DIR]
#
# Reads README.md, docs/*.md and rules/README.md under SOURCE_DIR (default:
# the folder above this script), takes every backquoted span outside fenced
# code blocks that looks like a repository path, and prints
# "FILE:LINE: PATH does not exist" for each one that does not; exits 1 if
# any does not, 0 otherwise.
#
# A span looks like a path when it contains a '/' or is a bare file name
# ending in a source extension (.h .cc .cu .sh .py .md .cmake .proto
# .axioms ...). A path with a '/' is resolved from SOURCE_DIR, and also
# stands for the program built from PATH.cc (`bench/optimize_bench`). A bare
# name stands when a file of that name exists anywhere in the tree outside
# the build folders. Bare names of data files (`candidates.pb`, `bert.qg`,
# `report.json`) are usually files a command reads or writes, so they are
# checked only with a folder.
#
# Not repository paths, and skipped: spans with spaces, wildcards, braces,
# <placeholders> or $VARIABLES; absolute paths and ~/...; URLs; paths in
# build output folders (build/, build-asan/, ...); paths under an
# upper-case placeholder folder (RUN/..., DIR/...).

set -euo pipefail

root=""
for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "docs_paths.sh: unknown option '$arg'" >&2; exit 2 ;;
    *) root=$arg ;;
  esac
done
if [ -z "$root" ]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
fi
cd "$root"

docs=(README.md docs/*.md rules/README.md)
for f in "${docs[@]}"; do
  [ -f "$f" ] || { echo "docs_paths.sh: $root/$f: missing" >&2; exit 2; }
done

# Every file name in the tree outside the build folders, for bare names.
declare -A names=()
while IFS= read -r name; do
  names["$name"]=1
done < <(find . \( -path ./.git -o -path ./build -o -path './build-*' \
                   -o -path ./Testing \) -prune -o -type f -printf '%f\n')

source_ext='h|hh|hpp|cc|cpp|cu|cuh|sh|py|md|cmake|proto|axioms|gen|pipeline|supp|sbatch'

# FILE<TAB>LINE<TAB>SPAN for each backquoted span without whitespace,
# outside fenced code blocks; a span may run over a line break.
spans() {
  awk '
    FNR == 1 { fence = 0; open = 0 }
    /^[ \t]*(```|~~~)/ { fence = !fence; open = 0; next }
    fence { next }
    /^[ \t]*$/ { open = 0; next }
    {
      n = length($0); i = 1
      while (i <= n) {
        c = substr($0, i, 1)
        if (c == "`") {
          j = i
          while (j <= n && substr($0, j, 1) == "`") j++
          run = j - i
          if (!open) { open = 1; ticks = run; buf = ""; start = FNR }
          else if (run == ticks) {
            open = 0
            gsub(/^ +| +$/, "", buf)
            if (buf != "" && buf !~ /[ \t]/)
              printf "%s\t%d\t%s\n", FILENAME, start, buf
          } else buf = buf substr($0, i, run)
          i = j
          continue
        }
        if (open) buf = buf c
        i++
      }
      if (open) buf = buf " "
    }
  ' "$@"
}

missing=0
while IFS=$'\t' read -r file line span; do
  # Only plain path characters: no wildcards, braces, placeholders,
  # variables, ~, URLs (':'), option values ('=') or alternatives ('|').
  [[ "$span" =~ ^[A-Za-z0-9_./-]+$ ]] || continue
  case "$span" in
    /*|-*) continue ;;           # absolute paths, flags
  esac
  path=${span#./}
  if [[ "$path" != */* ]]; then
    # A bare name: only file names with a source extension, not a bare
    # extension such as `.qg`.
    [[ "$path" =~ ^[^.].*\.($source_ext)$ ]] || continue
    [ -n "${names[$path]:-}" ] && continue
    echo "$file:$line: $path does not exist"
    missing=1
    continue
  fi
  first=${path%%/*}
  case "$first" in
    build|build-*) continue ;;   # build outputs
  esac
  [[ "$first" =~ ^[A-Z][A-Z0-9_]*$ ]] && continue   # RUN/..., DIR/...
  if [ -e "$path" ] || [ -e "$path.cc" ]; then
    # A trailing '/' names a folder.
    if [[ "$path" != */ ]] || [ -d "$path" ]; then
      continue
    fi
  fi
  echo "$file:$line: $path does not exist"
  missing=1
done < <(spans "${docs[@]}")

exit "$missing"
