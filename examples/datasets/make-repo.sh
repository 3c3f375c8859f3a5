#!/bin/sh
# Builds the git repository examples/datasets/registry.json names, offline and byte-for-byte the
# same every time (fixed names, dates and file modes), so its commit is the one the registry pins:
#   examples/datasets/make-repo.sh DIR   → DIR/harbor-tasks, holding tasks/hello-file
# registry.json names /tmp/datasets/harbor-tasks: run it with DIR=/tmp/datasets, or edit git_url.
# Then: crucible run hello@1.0 --registry examples/datasets/registry.json --agent oracle --sandbox docker
set -eu
dir="${1:?usage: make-repo.sh DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$dir/harbor-tasks"
rm -rf "$repo"
mkdir -p "$repo/tasks"
cp -R "$here/../harbor/hello-file" "$repo/tasks/hello-file"
cd "$repo"
find tasks -type f -exec chmod 644 {} +
chmod 755 tasks/hello-file/solution/solve.sh tasks/hello-file/tests/test.sh
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=example GIT_AUTHOR_EMAIL=example@example.invalid GIT_COMMITTER_NAME=example GIT_COMMITTER_EMAIL=example@example.invalid
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
git init -q -b main .
git add tasks
git commit -q -m 'The Harbor sample task, as a dataset'
git rev-parse HEAD
