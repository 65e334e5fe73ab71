#!/usr/bin/env bash
# Two sample instances on one PostgreSQL (or MariaDB), one killed with SIGKILL under load; then a check
# from the database that every order is PAID or CANCELLED, and how late the survivor cancelled the dead
# one's. Not part of the build. From a fresh clone:
#   ./mvnw -B -DskipTests package
#   sample-app/load/kill-under-load.sh [load-seconds] [clients] [window-seconds]    (40, 8, 10)
#   DATABASE=mariadb sample-app/load/kill-under-load.sh ...                         (on MariaDB)
# PostgreSQL comes from wheel-timer-test-support (the zonky binaries in ~/.m2; nothing to install; as
# root it runs as nobody); MariaDB is a throwaway server of the machine's mariadbd (Debian's
# mariadb-server, which ensure-mariadb.sh installs as root if missing). Logs of both instances:
# sample-app/target/kill-under-load/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
version=0.1.0-SNAPSHOT
jar="sample-app/target/sample-app-$version.jar"
postgres="wheel-timer-test-support/target/wheel-timer-test-support-$version.jar"
for f in "$jar" "$postgres"; do
    if [ ! -f "$f" ]; then
        echo "$f is missing: run ./mvnw -B -DskipTests package first" >&2
        exit 2
    fi
done
if [ "${DATABASE:-postgresql}" = mariadb ]; then
    bash wheel-timer-test-support/src/main/sh/ensure-mariadb.sh
fi
# The throwaway servers' runtime class path (zonky binaries, commons-compress, xz, the PostgreSQL and MariaDB drivers).
classpath="$(./mvnw -B -q -pl wheel-timer-test-support dependency:build-classpath \
    -Dmdep.includeScope=runtime -Dmdep.outputFile=/dev/stdout)"
exec java -cp "$postgres:$classpath" sample-app/load/KillUnderLoad.java "$root/$jar" "$@"
