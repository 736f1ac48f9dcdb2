#!/usr/bin/env bash
# The progress display is tested in a real terminal under tmux; install it where missing.
if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not found: installing it with apt-get" >&2
  sudo=""
  if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux >/dev/null
fi
