# Sourced by the benchmarks over published models (real_vs_ort.sh,
# real_joint.sh): for_each_real_model FN calls FN FILE [--input-shape S]...
# for each model of models/real/manifest.tsv that quarry runs, at its
# manifest input shapes; a model with an input fixed by value
# (value:NAME=...) is left out, and one not fetched is skipped, saying so.
# Needs $root (the repository) and $models (the model cache).
for_each_real_model() {
  # Read from a here-document, not a pipe, so that FN runs in this shell.
  while IFS="$(printf '\t')" read -r name _ _ _ _ shapes expect; do
    [ "$expect" = runs ] || continue
    case "$shapes" in *value:*) continue ;; esac
    file=$models/$name.onnx
    if [ ! -f "$file" ]; then
      echo "$0: $file is missing (scripts/fetch_models.sh): skipped" >&2
      continue
    fi
    set -- "$1" "$file"
    if [ "$shapes" != - ]; then
      for s in $(echo "$shapes" | tr ',' ' '); do
        set -- "$@" --input-shape "$s"
      done
    fi
    "$@"
  done <<EOF
$(grep -v '^#' "$root/models/real/manifest.tsv")
EOF
}
