#!/usr/bin/env bash
# What storing samples costs: interleaved qpslab runs with the results store
# (the default) and with --no-store, same workload and threads, several
# rounds; prints each round's QPS and the median ratio.
#
# Usage: bench/store_overhead.sh   env: THREADS=64 TIME=10 ROUNDS=5 INTERVAL=1 WORKLOAD=oltp_point_select
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-64}; TIME=${TIME:-10}; ROUNDS=${ROUNDS:-5}; INTERVAL=${INTERVAL:-1}
WORKLOAD=${WORKLOAD:-oltp_point_select}; TABLES=${TABLES:-4}; ROWS=${ROWS:-100000}
. bench/lib.sh
STORE=$(mktemp -d)/results.db
qps() { "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$THREADS" --time "$TIME" \
          --report-interval "$INTERVAL" --format json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["qps"])'; }
echo "# $WORKLOAD, $THREADS threads, $TIME s, samples every $INTERVAL s, $ROUNDS rounds; store $STORE"
printf "%5s %12s %12s %8s\n" round with_store no_store ratio
ratios=()
for r in $(seq 1 "$ROUNDS"); do
  a=$(qps --store "$STORE"); b=$(qps --no-store)
  ratio=$(echo "$a / $b" | bc -l); ratios+=("$ratio")
  printf "%5s %12.0f %12.0f %8.4f\n" "$r" "$a" "$b" "$ratio"
done
printf "median ratio (with / without store): %.4f\n" "$(printf "%s\n" "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')"
