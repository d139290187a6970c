#!/usr/bin/env bash
# Instructions per query of two qpslab builds, counted by valgrind's
# cachegrind: deterministic, so a hot-path change can be judged on a busy
# host where bench/ab.sh's CPU times are noise. One connection, point
# selects, monitor off, no store; the count of an E2-event run less an
# E1-event one, over E2 - E1, leaves start-up out. The per-second work is
# left out too (--report-interval 3600: no interval ticks, which under
# valgrind's ~50x slowdown were most of a run's instructions and made
# rounds differ by 2x), and the draws are the same (--rand-seed 7).
# For read_write (18 queries an event) the figure is per event.
#
# Usage: bench/ir_per_query.sh BIN_A BIN_B
#   env: ROUNDS=3, WORKLOAD=oltp_point_select (or a script's path),
#        E1=2000 E2=6000 (events of the two runs)
set -euo pipefail
A=$1 B=$2
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 2; }
ROUNDS=${ROUNDS:-3}
WORKLOAD=${WORKLOAD:-oltp_point_select}
E1=${E1:-2000}
E2=${E2:-6000}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (instruction counts do not depend on it)"
"$A" server start --name irq --profile bench >/dev/null
"$A" prepare "$WORKLOAD" --server irq --tables 1 --table-size 10000 >/dev/null 2>&1 || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # bin events -> Ir
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" "$1" run "$WORKLOAD" --server irq \
    --tables 1 --table-size 10000 --threads 1 --events "$2" --time 0 --report-interval 3600 --rand-seed 7 \
    --no-monitor --no-store >"$tmp/log" 2>&1 \
    || { echo "failed: $1 ($2 events)" >&2; tail -5 "$tmp/log" >&2; exit 1; }
  grep '^summary' "$tmp/out" | cut -d' ' -f2
}
for r in $(seq 1 "$ROUNDS"); do
  for w in A B; do
    bin=$A; [ "$w" = B ] && bin=$B
    a=$(ir "$bin" "$E1"); b=$(ir "$bin" "$E2")
    echo "round $r $w $(( (b - a) / (E2 - E1) )) instructions/event"
    echo "$w $(( (b - a) / (E2 - E1) ))" >> "$tmp/all"
  done
done
python3 - "$tmp/all" <<'PY'
import sys, statistics as st
v = {"A": [], "B": []}
for line in open(sys.argv[1]):
    w, n = line.split(); v[w].append(int(n))
a, b = st.median(v["A"]), st.median(v["B"])
print(f"median instructions/event: A {a:.0f}  B {b:.0f}  B/A {b / a:.3f}")
PY
