#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl) are installed, for the sample's tests against a
# real PostgreSQL server. Idempotent: does nothing when they are there. Installs Debian's `postgresql`
# package with apt-get when running as root; otherwise says what to install and fails.
set -euo pipefail

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-postgresql: PostgreSQL is not installed; installing Debian's postgresql package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q postgresql
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null
    exit 0
fi
echo "ensure-postgresql: the sample's tests need a PostgreSQL server (initdb, pg_ctl) and none is installed." >&2
echo "  Install it (Debian/Ubuntu: sudo apt-get install -y postgresql), or put initdb on the PATH." >&2
exit 1
