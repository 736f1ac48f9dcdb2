#!/usr/bin/env bash
# The scale-out tests run BullMQ on a real redis-server (Debian's package); install it where missing.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server not found: installing it with apt-get" >&2
  sudo=""
  if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
fi
