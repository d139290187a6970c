#!/usr/bin/env bash
# Runs every test binary `cargo test --release` would run, in less time:
# the binaries whose tests measure (they take common::measuring(): CPU
# figures, overhead ratios) run alone, one after the other; the others run
# in STREAMS parallel streams (each binary starts its own sandbox on its
# own datadir, socket and host-wide reserved port, so they cannot collide).
# The list comes from cargo itself, so a new tests/*.rs is never skipped.
# Each binary's output is printed whole when it ends; a binary that fails,
# or that runs no test at all, fails the command. Extra arguments go to
# every test binary (a filter, --nocapture).
#
#   bash scripts/run-tests.sh            # all
#   STREAMS=1 bash scripts/run-tests.sh  # one at a time, as cargo does
#   AFTER=target/ci-soak.rc bash scripts/run-tests.sh  # the measuring
#                                        # binaries after that file appears
set -euo pipefail
cd "$(dirname "$0")/.."
STREAMS=${STREAMS:-2}
# Binaries with measuring tests: alone, after the parallel part.
ALONE=${ALONE:-"profile monitor"}
# The longest first, so the streams end together (seconds each took in a
# clean-clone CI on the 2-core host, stop 57, and linkbench's +14 s test
# after it; a binary not named here counts as 10). Update them when a
# binary's time moves: a heavy binary left at 10 is scheduled last and
# leaves one stream running alone.
WEIGHTS="agents:99 ui:98 tpcc:92 faults:73 ibench:69 engines:64 linkbench:70
  mysql8:47 dbt3:50 sysbench_diff:44 script_runs:43 campaign:37 mariadb101:34
  store:28 prometheus:24 basedir:21 hostbench:19 dashboards:16 connect_and_errors:15
  script_compat:15 runs_manage:14 dbstress:13 shared_store:13 html_injection:12
  qpslab-lib:12 host_store:11"

logs=target/test-logs
rm -rf "$logs"
mkdir -p "$logs"
# The harness copies each sandbox's error log here when it destroys it
# (tests/common/mod.rs); a failed binary's log ends with their tails.
export QPSLAB_TEST_LOGS="$PWD/$logs"
# name<TAB>path for every test executable cargo builds (the library's
# unit tests are "qpslab-lib"; the binary has none: Cargo.toml's test = false).
cargo test --release --no-run --message-format=json 2>/dev/null \
  | grep '"profile":{[^}]*"test":true' \
  | sed -n 's/.*"kind":\["\([a-z-]*\)"\].*"executable":"\([^"]*\)".*/\1\t\2/p' \
  | while IFS=$'\t' read -r kind path; do
      name=$(basename "$path"); name=${name%-*}
      [ "$kind" = lib ] && name=qpslab-lib
      printf '%s\t%s\n' "$name" "$path"
    done > "$logs/binaries.tsv"
count=$(wc -l < "$logs/binaries.tsv")
[ "$count" -ge 3 ] || { echo "run-tests: cargo listed $count test binaries; expected the unit tests and tests/*.rs" >&2; exit 1; }
expected=$(( $(ls tests/*.rs | wc -l) + 1 ))
[ "$count" -eq "$expected" ] || { echo "run-tests: cargo listed $count test binaries, tests/*.rs and the unit tests make $expected" >&2; exit 1; }

weight() {
  local w
  for w in $WEIGHTS; do [ "${w%%:*}" = "$1" ] && { echo "${w#*:}"; return; }; done
  echo 10
}
is_alone() { local a; for a in $ALONE; do [ "$a" = "$1" ] && return 0; done; return 1; }

# Runs one binary; its log ends with "exit N" and the time it took. A
# binary that fails shows, before that line, how its sandboxes' error logs
# end (a server that stalled or died says why there).
run_one() {
  local name=$1 path=$2 start rc=0 err
  shift 2
  start=$(date +%s)
  "$path" "$@" > "$logs/$name.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    for err in "$logs/$name".*.error.log; do
      [ -f "$err" ] || continue
      { echo "--- the last 40 lines of $err:"; tail -n 40 "$err"; } >> "$logs/$name.log"
    done
  fi
  echo "exit $rc after $(( $(date +%s) - start )) s" >> "$logs/$name.log"
  return 0
}

# Greedy split: each binary, heaviest first, to the lightest stream.
declare -a load streams
for ((s = 0; s < STREAMS; s++)); do load[s]=0; streams[s]=""; done
while IFS=$'\t' read -r w name path; do
  best=0
  for ((s = 1; s < STREAMS; s++)); do [ "${load[s]}" -lt "${load[best]}" ] && best=$s; done
  load[best]=$(( load[best] + w ))
  streams[best]+="$name"$'\t'"$path"$'\n'
done < <(while IFS=$'\t' read -r name path; do
           is_alone "$name" || printf '%s\t%s\t%s\n' "$(weight "$name")" "$name" "$path"
         done < "$logs/binaries.tsv" | sort -rn)

t0=$(date +%s)
pids=()
for ((s = 0; s < STREAMS; s++)); do
  (
    while IFS=$'\t' read -r name path; do
      [ -n "$name" ] || continue
      run_one "$name" "$path" "$@"
      cat "$logs/$name.log"
    done <<< "${streams[s]}"
  ) > "$logs/stream-$s.out" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for ((s = 0; s < STREAMS; s++)); do cat "$logs/stream-$s.out"; done
echo "run-tests: the parallel part took $(( $(date +%s) - t0 )) s in $STREAMS streams"
# AFTER=FILE: the measuring binaries wait (20 minutes at most) for FILE,
# which a load beside the parallel part (CI's soak) writes when it ends.
if [ -n "${AFTER:-}" ]; then
  waited=0
  until [ -s "$AFTER" ] || [ "$waited" -ge 1200 ]; do sleep 5; waited=$(( waited + 5 )); done
  echo "run-tests: waited ${waited} s for $AFTER before the measuring binaries"
fi
while IFS=$'\t' read -r name path; do
  is_alone "$name" || continue
  run_one "$name" "$path" "$@"
  cat "$logs/$name.log"
done < "$logs/binaries.tsv"
doc_rc=0
cargo test --release --doc -- "$@" > "$logs/doc.log" 2>&1 || doc_rc=$?
echo "exit $doc_rc" >> "$logs/doc.log"

# The verdict: every binary exited 0 and ran at least one test.
failed=() empty=() total=0
while IFS=$'\t' read -r name path; do
  log="$logs/$name.log"
  last=$(tail -1 "$log")
  [ "${last#exit 0 }" != "$last" ] || { failed+=("$name ($last)"); continue; }
  ran=$(grep -o '^test result: ok\. [0-9]* passed' "$log" | awk '{s += $4} END {print s + 0}')
  total=$(( total + ran ))
  # A name filter may leave a binary with nothing to run; without one,
  # a binary that runs nothing is a fault.
  [ "$ran" -gt 0 ] || [ $# -gt 0 ] || empty+=("$name")
  printf 'run-tests: %-20s %4s tests  %s\n' "$name" "$ran" "${last#exit 0 }"
done < "$logs/binaries.tsv"
[ "$doc_rc" = 0 ] || failed+=("doc tests ($(tail -1 "$logs/doc.log"))")
echo "run-tests: $total tests passed in $(( $(date +%s) - t0 )) s"
if [ ${#empty[@]} -gt 0 ]; then
  echo "run-tests: no test ran in: ${empty[*]} (a test binary with nothing to run is a mistake)" >&2
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-tests: FAILED: ${failed[*]} (logs in $logs/)" >&2
fi
[ ${#failed[@]} -eq 0 ] && [ ${#empty[@]} -eq 0 ]
