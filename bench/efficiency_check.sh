#!/usr/bin/env bash
# Does the monitor's server CPU per query agree with an outside measurement?
# Reads the server's CPU time from /proc/PID/stat before and after each run
# (an outside window: connecting and closing included), divides by the
# run's queries, and compares with the monitor's figure.
#
# Usage: bench/efficiency_check.sh   env: THREADS=16 TIME=20 ROUNDS=3 WORKLOAD=oltp_point_select
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-16}; TIME=${TIME:-20}; ROUNDS=${ROUNDS:-3}
WORKLOAD=${WORKLOAD:-oltp_point_select}; TABLES=${TABLES:-4}; ROWS=${ROWS:-100000}
. bench/lib.sh
PID=$(cat "$QPSLAB_HOME/sandboxes/bench/mysqld.pid")
echo "# $WORKLOAD, $THREADS threads, $TIME s; server pid $PID"
printf "%5s %14s %14s %8s\n" round monitor_us_q proc_us_q ratio
OUT=$(mktemp)
for r in $(seq 1 "$ROUNDS"); do
  c0=$(proc_cpu "$PID")
  "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$THREADS" --time "$TIME" \
    --no-store --format json >"$OUT"
  c1=$(proc_cpu "$PID")
  python3 - "$OUT" "$c0" "$c1" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c0, c1 = float(sys.argv[2]), float(sys.argv[3])
inside = d["monitor"]["efficiency"]["server_cpu_us_per_query"]
outside = (c1 - c0) * 1e6 / d["totals"]["queries"]
print(f"{sys.argv[4]:>5} {inside:14.2f} {outside:14.2f} {inside/outside:8.4f}")
PY
done
