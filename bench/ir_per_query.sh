#!/usr/bin/env bash
# Instructions per query of two qpslab builds, counted by valgrind's
# cachegrind: deterministic, so a hot-path change can be judged on a busy
# host where bench/ab.sh's CPU times are noise. One connection, point
# selects, monitor off, no store; the count of a 6000-event run less a
# 2000-event one, over 4000, leaves start-up out (time-driven work, the
# per-second interval, is still in: valgrind runs ~50x slower).
#
# Usage: bench/ir_per_query.sh BIN_A BIN_B   (env: ROUNDS=3, WORKLOAD=oltp_point_select)
set -euo pipefail
A=$1 B=$2
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 2; }
ROUNDS=${ROUNDS:-3}
WORKLOAD=${WORKLOAD:-oltp_point_select}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (instruction counts do not depend on it)"
"$A" server start --name irq --profile bench >/dev/null
"$A" prepare "$WORKLOAD" --server irq --tables 1 --table-size 10000 >/dev/null 2>&1 || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # bin events -> Ir
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" "$1" run "$WORKLOAD" --server irq \
    --tables 1 --table-size 10000 --threads 1 --events "$2" --time 0 --no-monitor --no-store >"$tmp/log" 2>&1 \
    || { echo "failed: $1 ($2 events)" >&2; tail -5 "$tmp/log" >&2; exit 1; }
  grep '^summary' "$tmp/out" | cut -d' ' -f2
}
for r in $(seq 1 "$ROUNDS"); do
  for w in A B; do
    bin=$A; [ "$w" = B ] && bin=$B
    a=$(ir "$bin" 2000); b=$(ir "$bin" 6000)
    echo "round $r $w $(( (b - a) / 4000 )) instructions/query"
    echo "$w $(( (b - a) / 4000 ))" >> "$tmp/all"
  done
done
python3 - "$tmp/all" <<'PY'
import sys, statistics as st
v = {"A": [], "B": []}
for line in open(sys.argv[1]):
    w, n = line.split(); v[w].append(int(n))
a, b = st.median(v["A"]), st.median(v["B"])
print(f"median instructions/query: A {a:.0f}  B {b:.0f}  B/A {b / a:.3f}")
PY
