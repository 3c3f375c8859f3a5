#!/usr/bin/env bash
# Puts bubblewrap, the sandbox `crucible ci` runs the change's tests in, on the runner when it lacks
# it: without it the tests would run unsandboxed (with a warning). Debian/Ubuntu runners (apt-get).
set -euo pipefail
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v bwrap >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "::warning::bubblewrap is missing and this runner has no apt-get: install bubblewrap before this step, or the tests run unsandboxed"
    exit 0
  fi
  echo "bubblewrap is missing: installing it with apt-get"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap
fi
# Ubuntu 24.04 forbids unprivileged user namespaces to programs AppArmor does not know; bwrap needs them.
if [ "$(cat /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null || echo 0)" = 1 ]; then
  as_root sysctl -qw kernel.apparmor_restrict_unprivileged_userns=0
fi
if bwrap --ro-bind / / --dev /dev --proc /proc true; then
  echo "bubblewrap $(bwrap --version | awk '{print $2}') runs here"
else
  echo "::warning::bubblewrap is installed but cannot create a sandbox on this runner: the tests run unsandboxed"
fi
