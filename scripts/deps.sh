#!/usr/bin/env bash
# Installs what qpslab needs to build, run and be tested on Debian/Ubuntu:
# MariaDB server and client, sysbench (for compatibility tests and
# benchmarks), unzip and Maven (to fetch MariaDB 11.4 for the --basedir
# test), bc (bench), prometheus (promtool, for the export test), linux-perf (the profiler), strace (its syscall test), and a Rust toolchain when cargo is missing.
# DuckDB (PyPI), the DBT3 answer test's independent engine, goes in a venv
# under target/duckdb-venv (Debian's python3 refuses a system-wide pip).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v mariadb >/dev/null 2>&1 || need+=(mariadb-client)
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v bc >/dev/null 2>&1 || need+=(bc)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v perf >/dev/null 2>&1 || need+=(linux-perf)
command -v strace >/dev/null 2>&1 || need+=(strace)
command -v curl >/dev/null 2>&1 || need+=(curl)
# promtool (Debian's prometheus package): the export test backfills with it
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
command -v cc >/dev/null 2>&1 || need+=(build-essential)
if [ "${QPSLAB_WITH_MAVEN:-0}" = 1 ]; then command -v mvn >/dev/null 2>&1 || need+=(maven); fi
# The browser test: Debian's Chromium, driven by playwright-core from npm.
if [ "${QPSLAB_WITH_BROWSER:-0}" = 1 ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  command -v node >/dev/null 2>&1 || need+=(nodejs npm)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  # Debian starts the system MariaDB service on install; qpslab does not use it.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || {
    command -v curl >/dev/null 2>&1 || { $SUDO apt-get update -qq; $SUDO apt-get install -y -qq curl >/dev/null; }
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c clippy -c rustfmt
  }
fi
export PATH="$HOME/.cargo/bin:$PATH"
here=$(cd "$(dirname "$0")/.." && pwd)
venv="$here/target/duckdb-venv"
if ! "$venv/bin/python" -c 'import duckdb' >/dev/null 2>&1; then
  rm -rf "$venv"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q duckdb; } \
    || { echo "installing DuckDB (pip install duckdb in target/duckdb-venv) failed: the DBT3 answer test needs it" >&2; exit 1; }
fi
if [ "${QPSLAB_WITH_BROWSER:-0}" = 1 ]; then
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "the browser test needs Node.js 20 or newer (found $(node --version))" >&2; exit 1; }
  [ -d "$here/tests/ui/node_modules/playwright-core" ] || npm ci --prefix "$here/tests/ui" --no-audit --no-fund >/dev/null
fi
# The profiler reads scheduler tracepoints (sched:sched_switch): tracefs
# must be mounted; fresh VMs and containers often leave it unmounted.
if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
  $SUDO mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null \
    || echo "note: tracefs could not be mounted: the profiler (and its tests) will say what they cannot read" >&2
fi
# The test command checks formatting and lints.
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  if command -v rustup >/dev/null 2>&1; then
    rustup component add clippy rustfmt
  else
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq rustfmt rust-clippy >/dev/null
  fi
fi
