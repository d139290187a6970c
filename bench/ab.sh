#!/usr/bin/env bash
# A/B of two qpslab binaries on the same sandbox MariaDB, interleaved:
# for a hot-path change, run the build before it (A) and after it (B).
#
# Each round runs A then B (B then A on odd rounds) at every thread count
# and prints QPS and whole-process client CPU per query (user+sys from
# /usr/bin/time, connection set-up included, monitor on, defaults), then
# the medians over rounds and the ratios B/A.
#
# Usage: bench/ab.sh BIN_A BIN_B
#   env: THREADS="1 4 16 64" TIME=5 ROUNDS=3 TABLES=4 ROWS=100000 WORKLOAD=oltp_point_select
#        EXTRA="--io-backend uring" (options given to both binaries' runs)
set -euo pipefail
A=$1 B=$2
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 4 16 64"}
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
WORKLOAD=${WORKLOAD:-oltp_point_select}
read -r -a EXTRA <<< "${EXTRA:-}"
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
SERVER=${SERVER:-ab}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
# `--profile` (the older name of --preset): A is often a build from before the rename
"$A" server start --name "$SERVER" --profile bench >/dev/null
if ! "$A" run "$WORKLOAD" --server "$SERVER" --tables "$TABLES" --table-size "$ROWS" --time 1 --no-store >/dev/null 2>&1; then
  "$A" prepare "$WORKLOAD" --server "$SERVER" --tables "$TABLES" --table-size "$ROWS" >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # bin threads -> "qps us_per_query"
  /usr/bin/time -f "%U %S" -o "$tmp/t" "$1" run "$WORKLOAD" --server "$SERVER" --tables "$TABLES" \
    --table-size "$ROWS" --threads "$2" --time "$TIME" --format json --no-store ${EXTRA[@]+"${EXTRA[@]}"} > "$tmp/j" 2>/dev/null || true
  python3 - "$tmp/j" "$tmp/t" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); u, s = map(float, open(sys.argv[2]).read().split()[-2:])
q = d["totals"]["queries"]
print(f'{d["totals"]["qps"]:.0f} {(u + s) * 1e6 / max(q, 1):.2f}')
PY
}
printf "%-6s %-5s %-3s %10s %10s\n" round thr bin qps us/q
for r in $(seq 1 "$ROUNDS"); do
  for th in $THREADS; do
    order="A B"; [ $((r % 2)) -eq 0 ] && order="B A"
    for w in $order; do
      bin=$A; [ "$w" = B ] && bin=$B
      read -r qps us < <(one "$bin" "$th")
      printf "%-6s %-5s %-3s %10s %10s\n" "$r" "$th" "$w" "$qps" "$us"
      echo "$th $w $qps $us" >> "$tmp/all"
    done
  done
done
echo
python3 - "$tmp/all" <<'PY'
import sys, statistics as st, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    th, w, qps, us = line.split(); v[(int(th), w)].append((float(qps), float(us)))
print(f'{"threads":>7} {"A qps":>9} {"B qps":>9} {"B/A":>6} {"A us/q":>8} {"B us/q":>8} {"B/A":>6}')
for th in sorted({k[0] for k in v}):
    a, b = v[(th, "A")], v[(th, "B")]
    aq, bq = st.median(x[0] for x in a), st.median(x[0] for x in b)
    au, bu = st.median(x[1] for x in a), st.median(x[1] for x in b)
    print(f'{th:>7} {aq:>9.0f} {bq:>9.0f} {bq / aq:>6.3f} {au:>8.2f} {bu:>8.2f} {bu / au:>6.3f}')
PY
"$A" server stop --name "$SERVER" >/dev/null
