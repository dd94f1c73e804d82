#!/usr/bin/env bash
# Rebuild the real-trace corpus from corpus/sources.tsv: copy each source (a
# file or a folder of a public repository, at the recorded commit) to
# CORPUS/<local>. Each repository is read from a git mirror
# MIRRORS/<owner>+<name>/repo when there is one (the layout the workplace's
# fetch leaves in /work/.mirror), else cloned from GitHub into a temporary
# folder. Sources already present are left as they are.
#
#   corpus/rebuild.sh [CORPUS [MIRRORS]]      defaults: /work/corpus /work/.mirror
set -euo pipefail
cd "$(dirname "$0")"
corpus=${1:-/work/corpus}
mirrors=${2:-/work/.mirror}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

made=0 kept=0 failed=0
while IFS=$'\t' read -r agent repo commit path local _rest; do
  [[ "$agent" == agent || -z "$agent" || "$agent" == \#* ]] && continue
  dest="$corpus/$local"
  if [[ -e "$dest" ]]; then kept=$((kept + 1)); continue; fi
  git_dir="$mirrors/${repo/\//+}/repo"
  if [[ ! -d "$git_dir" ]]; then
    git_dir="$tmp/${repo/\//+}.git"
    [[ -d "$git_dir" ]] || git clone --quiet --bare "https://github.com/$repo" "$git_dir" 2>/dev/null || {
      echo "rebuild: $repo: no mirror in $mirrors and cannot clone" >&2
      failed=$((failed + 1)); continue
    }
  fi
  mkdir -p "$(dirname "$dest")"
  case "$(git --git-dir="$git_dir" cat-file -t "$commit:$path" 2>/dev/null)" in
    blob)
      git --git-dir="$git_dir" show "$commit:$path" >"$dest"
      # A SQLite store's write-ahead log holds its latest rows until a
      # checkpoint: committed beside it, it is part of the source.
      for side in -wal -shm; do
        if [[ "$(git --git-dir="$git_dir" cat-file -t "$commit:$path$side" 2>/dev/null)" == blob ]]; then
          git --git-dir="$git_dir" show "$commit:$path$side" >"$dest$side"
        fi
      done ;;
    tree)
      mkdir -p "$dest"
      git --git-dir="$git_dir" archive "$commit" "$path" | tar -x -C "$tmp" --one-top-level=x
      cp -a "$tmp/x/$path/." "$dest/" && rm -rf "$tmp/x" ;;
    *) echo "rebuild: $repo@$commit has no $path" >&2; failed=$((failed + 1)); continue ;;
  esac
  made=$((made + 1))
done <sources.tsv
echo "rebuild: $made copied, $kept already there, $failed failed, into $corpus"
[[ $failed -eq 0 ]]
