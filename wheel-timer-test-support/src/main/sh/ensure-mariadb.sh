#!/usr/bin/env bash
# Makes sure a MariaDB server is installed, for the tests that run against a real one (each test JVM starts
# its own throwaway server, MariaDbServer in wheel-timer-test-support: a new data directory in a temporary
# directory, a free loopback port, stopped and deleted afterwards). Nothing is started here, and the
# package's own service is not used.
# Idempotent: does nothing when mariadbd (or mysqld) and mariadb-install-db are there. Installs Debian's
# `mariadb-server` package with apt-get when running as root; otherwise says what to install and fails.
set -euo pipefail

found() {
    for name in "$@"; do
        if command -v "$name" >/dev/null 2>&1 || [ -x "/usr/sbin/$name" ] || [ -x "/usr/bin/$name" ]; then
            return 0
        fi
    done
    return 1
}

if found mariadbd mysqld && found mariadb-install-db mysql_install_db; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-mariadb: no MariaDB server is installed; installing Debian's mariadb-server package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends mariadb-server
    found mariadbd mysqld
    exit 0
fi
echo "ensure-mariadb: the MariaDB tests need a MariaDB server (mariadbd, mariadb-install-db) and none is installed." >&2
echo "  Install it (Debian/Ubuntu: sudo apt-get install -y mariadb-server), or put mariadbd on the PATH." >&2
exit 1
