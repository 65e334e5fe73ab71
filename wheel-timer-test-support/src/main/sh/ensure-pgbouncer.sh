#!/usr/bin/env bash
# Makes sure PgBouncer is installed, for the tests that run durable timeouts behind a connection pooler
# (each test JVM starts its own throwaway pgbouncer, PgBouncerServer in wheel-timer-test-support: its own
# configuration in a temporary directory, a free loopback port, in front of the embedded PostgreSQL,
# stopped and deleted afterwards). Nothing is started here, and the package's own service is not used.
# Idempotent: does nothing when pgbouncer is there. Installs Debian's `pgbouncer` package with apt-get
# when running as root; otherwise says what to install and fails.
set -euo pipefail

if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || [ -x /usr/bin/pgbouncer ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-pgbouncer: PgBouncer is not installed; installing Debian's pgbouncer package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends pgbouncer
    # The package's own service is of no use here: the tests start their own pgbouncer.
    if command -v systemctl >/dev/null 2>&1; then
        systemctl disable --now pgbouncer >/dev/null 2>&1 || true
    fi
    [ -x /usr/sbin/pgbouncer ] || command -v pgbouncer >/dev/null 2>&1
    exit 0
fi
echo "ensure-pgbouncer: the tests behind a connection pooler need PgBouncer (pgbouncer) and it is not installed." >&2
echo "  Install it (Debian/Ubuntu: sudo apt-get install -y pgbouncer), or put pgbouncer in /usr/sbin." >&2
exit 1
