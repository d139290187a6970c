#!/usr/bin/env bash
# Runs one test binary RUNS times while other binaries loop beside it, to
# bring out a failure that load makes rare (stop 66: tests/tpcc.rs's
# sandbox hung on MariaDB's bulk-insert lock in 1 of 2 runs this way).
# Prints each run's exit code and seconds; keeps every run's output and
# its sandboxes' error logs under OUT/<run>/ (the harness copies them to
# $QPSLAB_TEST_LOGS). A run past LIMIT seconds is killed (exit 124); its
# sandbox, which its exit hook did not get to stop, is killed after it.
#
#   RUNS=12 BESIDE="faults linkbench" bash bench/loop_tests.sh tpcc
#
# Build the test binaries first: cargo test --release --no-run.
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=${1:?usage: bench/loop_tests.sh TEST_BINARY (a tests/*.rs name)}
RUNS=${RUNS:-12}
BESIDE=${BESIDE:-faults linkbench}
LIMIT=${LIMIT:-900}
OUT=$(realpath -m "${OUT:-target/loop-tests}")
rm -rf "$OUT"
mkdir -p "$OUT"
# The newest build of a test binary (empty when there is none).
binary() {
  ls -t target/release/deps/"$1"-* 2>/dev/null | grep -v '\.d$' | head -1 || true
}
main=$(binary "$NAME")
beside=()
for b in "$NAME" $BESIDE; do
  path=$(binary "$b")
  [ -n "$path" ] || { echo "no test binary $b: run cargo test --release --no-run" >&2; exit 1; }
  [ "$b" = "$NAME" ] || beside+=("$b=$path")
done
# Kills the servers of test state directories (/tmp/qpslab-test-PID)
# whose test process is gone, and removes the directories.
# (only this user's: kill -0 fails on another user's process too)
reap() {
  local d pid p
  for d in "${TMPDIR:-/tmp}"/qpslab-test-*; do
    [ -d "$d" ] && [ -O "$d" ] || continue
    pid=${d##*-}
    ! kill -0 "$pid" 2>/dev/null || continue
    for p in "$d"/sandboxes/*/mysqld.pid; do
      [ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null || true
    done
    rm -rf "$d" || true
  done
}
echo "# $NAME x $RUNS, beside: $BESIDE; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# (each beside binary runs at most RUNS times, so the loop is bounded)
(
  for ((i = 1; i <= RUNS; i++)); do
    for entry in "${beside[@]}"; do
      b=${entry%%=*}
      timeout "$LIMIT" "${entry#*=}" > "$OUT/beside-$b.$i.log" 2>&1 \
        || echo "beside: $b run $i failed ($OUT/beside-$b.$i.log)"
      [ ! -e "$OUT/done" ] || exit 0
    done
  done
) &
BESIDE_PID=$!
failed=0
for ((i = 1; i <= RUNS; i++)); do
  mkdir -p "$OUT/$i"
  start=$SECONDS rc=0
  QPSLAB_TEST_LOGS="$OUT/$i" timeout "$LIMIT" "$main" > "$OUT/$i/$NAME.log" 2>&1 || rc=$?
  echo "run $i: exit $rc after $((SECONDS - start)) s"
  [ "$rc" != 124 ] || reap
  [ "$rc" = 0 ] || failed=$((failed + 1))
done
touch "$OUT/done"
wait "$BESIDE_PID" || true
reap
echo "# $failed of $RUNS runs failed; outputs and error logs in $OUT/"
[ "$failed" = 0 ]
