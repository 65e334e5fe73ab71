#!/usr/bin/env bash
# Two sample instances on one PostgreSQL, one killed with SIGKILL under load; then a check from the
# database that every order is PAID or CANCELLED, and how late the survivor cancelled the dead one's.
# Not part of the build. From a fresh clone:
#   ./mvnw -B -DskipTests package
#   sample-app/load/kill-under-load.sh [load-seconds] [clients] [window-seconds]    (40, 8, 10)
# PostgreSQL comes from wheel-timer-test-support (the zonky binaries in ~/.m2; nothing to install; as
# root it runs as nobody). Logs of both instances: sample-app/target/kill-under-load/.
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
# The embedded server's runtime class path (zonky binaries, commons-compress, xz, PostgreSQL driver).
classpath="$(./mvnw -B -q -pl wheel-timer-test-support dependency:build-classpath \
    -Dmdep.includeScope=runtime -Dmdep.outputFile=/dev/stdout)"
exec java -cp "$postgres:$classpath" sample-app/load/KillUnderLoad.java "$root/$jar" "$@"
