#!/usr/bin/env bash
# Events per connection, qpslab against sysbench (issue 37 item 2).
#
# Point select on the bench sandbox (QPSLAB_HOME, default
# target/bench-home; TABLES x ROWS prepared once with SKIP_PREPARE=0).
# For each round and each thread count: sysbench, then each qpslab binary
# given (default target/release/qpslab), interleaved. Prints per run QPS,
# whole-process CPU µs per query (user+sys from /usr/bin/time, connection
# set-up included) and the spread of events per connection (stddev/mean
# = cv; for qpslab also the fewest and most events over the mean, from
# the run document's per-connection counts); then the medians.
#
# Usage: bench/fairness.sh [QPSLAB_BIN ...]
#   env: THREADS="16 64" TIME=10 ROUNDS=3 TABLES=4 ROWS=100000 SKIP_PREPARE=1
#        EXTRA="" (more qpslab options, e.g. --client-sched normal)
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"16 64"}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
SKIP_PREPARE=${SKIP_PREPARE:-1}
EXTRA=${EXTRA:-}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
BINS=("$@")
[ ${#BINS[@]} -gt 0 ] || BINS=("$PWD/target/release/qpslab")
Q=${BINS[0]}
"$Q" server start --name bench --preset bench >/dev/null
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}' | head -1)
if [ "$SKIP_PREPARE" != 1 ]; then
  "$Q" prepare oltp_point_select --server bench --create --tables "$TABLES" --table-size "$ROWS" >/dev/null
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "# $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  for t in $THREADS; do
    /usr/bin/time -f "cpu %U %S" -o "$TMP/t" sysbench --mysql-socket="$SOCK" --mysql-user=root \
      --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS" --threads="$t" --time="$TIME" \
      oltp_point_select run >"$TMP/o" 2>&1
    python3 - "$TMP/o" "$TMP/t" "$r" "$t" <<'PY'
import re,sys
o=open(sys.argv[1]).read(); cpu=float(open(sys.argv[2]).read().split()[1])+float(open(sys.argv[2]).read().split()[2])
q=int(re.search(r"queries:\s+(\d+)",o).group(1)); qps=float(re.search(r"queries:\s+\d+\s+\(([\d.]+)",o).group(1))
m,sd=map(float,re.search(r"events \(avg/stddev\):\s+([\d.]+)/([\d.]+)",o).groups())
print(f"round {sys.argv[3]} threads {sys.argv[4]:>4} sysbench      qps {qps:9.0f} cpu_us/q {cpu*1e6/q:6.2f} cv {sd/m:.3f} (min/max n/a)")
PY
    for b in "${BINS[@]}"; do
      /usr/bin/time -f "cpu %U %S" -o "$TMP/t" "$b" run oltp_point_select --server bench --tables "$TABLES" \
        --table-size "$ROWS" --threads "$t" --time "$TIME" --format json --no-store $EXTRA >"$TMP/j" 2>/dev/null
      python3 - "$TMP/j" "$TMP/t" "$r" "$t" "$(basename "$b")" <<'PY'
import json,statistics as s,sys
d=json.load(open(sys.argv[1])); w=open(sys.argv[2]).read().split(); cpu=float(w[1])+float(w[2])
e=d["threads_fairness"]["events"]; m=s.mean(e); q=d["totals"]["queries"]
print(f"round {sys.argv[3]} threads {sys.argv[4]:>4} {sys.argv[5]:<13} qps {d['totals']['qps']:9.0f} cpu_us/q {cpu*1e6/q:6.2f} cv {s.pstdev(e)/m:.3f} min/max {min(e)/m:.2f}/{max(e)/m:.2f}")
PY
    done
  done
done | tee "$TMP/all"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# medians"
python3 - "$TMP/all" <<'PY'
import sys,statistics as s,collections
g=collections.defaultdict(list)
for l in open(sys.argv[1]):
    w=l.split(); g[(int(w[3]),w[4])].append((float(w[6]),float(w[8]),float(w[10])))
for (t,n),v in sorted(g.items()):
    print(f"threads {t:>4} {n:<13} qps {s.median(x[0] for x in v):9.0f} cpu_us/q {s.median(x[1] for x in v):6.2f} cv {s.median(x[2] for x in v):.3f}")
PY
