#!/usr/bin/env bash
# Makes sure promtool is installed, for the test that checks the Prometheus alert rules of the docs
# (docs/prometheus/wheel-timer-rules.yml) with `promtool check rules`. Nothing is started here.
# Idempotent: does nothing when promtool is there. Installs Debian's `prometheus` package (which holds
# promtool) with apt-get when running as root, without starting its service; otherwise says what to
# install and fails.
set -euo pipefail

if command -v promtool >/dev/null 2>&1 || [ -x /usr/bin/promtool ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-promtool: promtool is not installed; installing Debian's prometheus package" >&2
    export DEBIAN_FRONTEND=noninteractive
    # The package's own service is not wanted: policy-rc.d 101 keeps it from starting, where no
    # policy-rc.d is in place already.
    policy=/usr/sbin/policy-rc.d
    created=false
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod +x "$policy"
        created=true
    fi
    trap '[ "$created" = true ] && rm -f "$policy"' EXIT
    apt-get update -q
    apt-get install -y -q --no-install-recommends prometheus
    command -v promtool >/dev/null
    exit 0
fi
echo "ensure-promtool: the docs' rules test needs promtool and none is installed." >&2
echo "  Install it (Debian/Ubuntu: sudo apt-get install -y prometheus), or put promtool on the PATH." >&2
exit 1
