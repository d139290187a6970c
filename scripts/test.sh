#!/usr/bin/env bash
# The test command: installs what the tests need, fetches MariaDB 11.4 and
# 10.1 for the --basedir tests, builds, runs the short soak (beside the
# lints and the tests' build), and runs every test. The tests start their own
# sandbox servers on private datadirs, sockets and ports, and remove them.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's end, in seconds since the start (where CI's time goes).
phase() { echo "test.sh: $1 done at ${SECONDS} s" >&2; }
QPSLAB_WITH_MAVEN=1 QPSLAB_WITH_BROWSER=1 bash scripts/deps.sh
phase "dependencies"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# The server trees download while the code builds (one after the other:
# two Maven runs at once share a local repository).
mkdir -p target
{ bash scripts/mariadb114.sh > target/ci-mariadb114.path \
    && bash scripts/mariadb101.sh > target/ci-mariadb101.path; } &
FETCH=$!
cargo fmt --check
cargo build --release
phase "build"
wait "$FETCH" || { echo "fetching MariaDB 11.4 or 10.1 failed (scripts/mariadb114.sh, scripts/mariadb101.sh; output above)" >&2; exit 1; }
QPSLAB_TEST_MARIADB_114=$(cat target/ci-mariadb114.path)
QPSLAB_TEST_MARIADB_101=$(cat target/ci-mariadb101.path)
export QPSLAB_TEST_MARIADB_114 QPSLAB_TEST_MARIADB_101
# The short soak: a 10-minute monitored run with the UI polled, a sandbox
# restart at 3 minutes and a profile at 5; fails when the run fails or
# its memory grows by 1 MB per 10 minutes or more after its first 7
# minutes (the counters' and the store's caches fill until about then,
# and stay flat after: docs/BENCHMARKS.md; bench/soak.sh runs 2 hours).
# It runs while the lints, the tests' build and the tests that do not
# measure run (its check is memory, which load beside it does not change);
# the measuring tests wait for its end (AFTER in scripts/run-tests.sh). Its
# load is capped at 400 events a second and niced: unbounded, its 32 users
# and the server took most of the 2 CPUs from the compiler for 10 minutes.
rm -f target/ci-soak.rc
{ rc=0
  MINUTES=10 SAMPLE=15 WARMUP=420 RESTART_AT=180 PROFILE_EVERY=300 MAX_SLOPE=1 CHECK=1 RATE=400 \
    nice -n 10 bash bench/soak.sh > target/ci-soak.log 2>&1 || rc=$?
  echo "$rc" > target/ci-soak.rc; } &
SOAK=$!
trap 'kill "$SOAK" 2>/dev/null || true' EXIT
cargo clippy --release --all-targets -- -D warnings
phase "clippy"
cargo test --release --no-run
phase "test build"
# Every test binary cargo builds: the measuring ones alone, after the
# soak, the others in two parallel streams beside its end
# (scripts/run-tests.sh; STREAMS=1 runs them as cargo does).
tests_rc=0
AFTER=target/ci-soak.rc bash scripts/run-tests.sh || tests_rc=$?
phase "tests"
wait "$SOAK" || true
trap - EXIT
cat target/ci-soak.log
soak_rc=$(cat target/ci-soak.rc 2>/dev/null || echo "none (it did not end)")
if [ "$soak_rc" != 0 ]; then
  echo "the soak's run, its last lines (target/soak/run.log):" >&2
  tail -15 target/soak/run.log >&2 2>/dev/null || echo "(no run.log: the run never started)" >&2
  echo "the soak failed (exit $soak_rc): see above" >&2; exit 1
fi
phase "soak"
exit "$tests_rc"
