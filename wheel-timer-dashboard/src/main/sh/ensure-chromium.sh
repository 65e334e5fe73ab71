#!/usr/bin/env bash
# Makes sure a headless-capable Chromium and its chromedriver are installed, for the dashboard's browser
# tests (each test starts its own headless browser through chromedriver, with a fresh profile in a
# temporary directory; nothing is started here, and no browser is downloaded by the build).
# Idempotent: does nothing when chromium and chromedriver are there. Installs Debian's `chromium` and
# `chromium-driver` packages with apt-get when running as root; otherwise says what to install and fails.
set -euo pipefail

found() {
    command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ]
}

if found chromium && found chromedriver; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: chromium or chromedriver is missing; installing Debian's chromium and chromium-driver" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends chromium chromium-driver
    found chromium && found chromedriver
    exit 0
fi
echo "ensure-chromium: the dashboard's browser tests need chromium and chromedriver, and they are not installed." >&2
echo "  Install them (Debian/Ubuntu: sudo apt-get install -y chromium chromium-driver), or put both on the PATH." >&2
exit 1
