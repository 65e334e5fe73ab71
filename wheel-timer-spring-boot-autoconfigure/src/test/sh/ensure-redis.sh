#!/usr/bin/env bash
# Makes sure redis-server is installed, for the tests that run Lettuce against a real Redis server (each
# test class starts its own server on a free loopback port, in a temporary directory, and stops it).
# Idempotent: does nothing when redis-server is there. Installs Debian's `redis-server` package with
# apt-get when running as root; otherwise says what to install and fails.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-redis: redis-server is not installed; installing Debian's redis-server package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q redis-server
    command -v redis-server >/dev/null
    exit 0
fi
echo "ensure-redis: the Lettuce tests need redis-server and none is installed." >&2
echo "  Install it (Debian/Ubuntu: sudo apt-get install -y redis-server), or put redis-server on the PATH." >&2
exit 1
