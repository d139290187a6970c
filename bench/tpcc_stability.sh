#!/usr/bin/env bash
# TPC-C's NOPM over repeated runs: REPEATS runs of TIME seconds on the same
# data (the 'bench' sandbox, WAREHOUSES warehouses, THREADS terminals),
# each after a WARMUP, and the spread (max - min) / median.
#
# Usage: bench/tpcc_stability.sh
#   env: WAREHOUSES=2 THREADS=16 TIME=60 WARMUP=10 REPEATS=3
set -euo pipefail
cd "$(dirname "$0")/.."
WAREHOUSES=${WAREHOUSES:-2}
THREADS=${THREADS:-16}
TIME=${TIME:-60}
WARMUP=${WARMUP:-10}
REPEATS=${REPEATS:-3}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
"$Q" server start --name bench --preset bench >/dev/null
if ! "$Q" run tpcc --server bench --create --db tpcc_stab --warehouses "$WAREHOUSES" --events 1 --no-store --no-monitor >/dev/null 2>&1; then
  "$Q" prepare tpcc --server bench --create --db tpcc_stab --warehouses "$WAREHOUSES" >/dev/null
fi
mkdir -p bench/results
OUT=bench/results/tpcc-stability-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# $($Q --version); $WAREHOUSES warehouses, $THREADS threads, $REPEATS x ${TIME} s after ${WARMUP} s warm-up"
v=()
for r in $(seq 1 "$REPEATS"); do
  n=$("$Q" run tpcc --server bench --create --db tpcc_stab --warehouses "$WAREHOUSES" --threads "$THREADS" \
        --time "$TIME" --warmup-time "$WARMUP" --report-interval 0 --no-store --format json |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(round(d["tpcc"]["nopm"],1))')
  echo "run $r: NOPM $n   (load average $(cut -d' ' -f1 /proc/loadavg))"
  v+=("$n")
done
printf '%s\n' "${v[@]}" | sort -g | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "median NOPM %.1f, spread (max-min)/median %.1f%% (goal: within +-3%%, i.e. spread <= 6%%)\n", m, 100*(a[NR]-a[1])/m}'
