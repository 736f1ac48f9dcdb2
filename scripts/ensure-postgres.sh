#!/usr/bin/env bash
# Makes sure a Postgres server (initdb, pg_ctl) is available for the integration tests.
# Debian's `postgresql` package installs the server binaries in /usr/lib/postgresql/<version>/bin,
# not on PATH; this script adds that folder to PATH. Source it (`. scripts/ensure-postgres.sh`)
# to keep the PATH change in your shell; on GitHub Actions it is also written to $GITHUB_PATH.
# No `set -e`: when sourced it would leak into the caller's shell.

_sqlload_pg_bin_dir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

_sqlload_ensure_postgres() {
  if ! command -v initdb >/dev/null 2>&1 && [ -z "$(_sqlload_pg_bin_dir)" ]; then
    echo "initdb not found: installing postgresql with apt-get" >&2
    local sudo=""
    if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
    $sudo apt-get update -qq || return 1
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null || return 1
  fi
  if ! command -v initdb >/dev/null 2>&1; then
    local dir
    dir="$(_sqlload_pg_bin_dir)"
    if [ -z "$dir" ]; then
      echo "postgresql is installed but no initdb was found in /usr/lib/postgresql/*/bin" >&2
      return 1
    fi
    export PATH="$dir:$PATH"
    if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir" >>"$GITHUB_PATH"; fi
  fi
  echo "initdb: $(command -v initdb) ($(initdb --version))" >&2
}

if (return 0 2>/dev/null); then
  _sqlload_ensure_postgres
else
  _sqlload_ensure_postgres || exit 1
fi
