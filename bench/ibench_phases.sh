#!/usr/bin/env bash
# The insert benchmark's whole default sequence (l.i0 … qp1000) at a small
# scale on a sandbox: its wall time as a user sees it (/usr/bin/time), the
# per-phase table, and for each query phase the insert rate held against
# its target (the goal: within ±2% over 60 s when the server can hold it;
# the schedule lag printed beside).
#
# Usage: bench/ibench_phases.sh
#   env: ROWS=2000000 TIME=60 THREADS=1 SETTLE=60
# Results go to stdout and bench/results/ibench-phases-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-2000000}
TIME=${TIME:-60}
THREADS=${THREADS:-1}
SETTLE=${SETTLE:-60}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/ibench-phases-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
M=$(mktemp -d)
trap 'rm -rf "$M"' EXIT
"$Q" server start --name ibseq --preset bench >/dev/null
echo "insert benchmark, all phases: $ROWS rows, --time $TIME, $THREADS inserters, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "wall %e s, qpslab CPU user %U s sys %S s, max RSS %M KB" \
  "$Q" run insert-benchmark --server ibseq --db ibseq --phases all --rows "$ROWS" --time "$TIME" \
  --threads "$THREADS" --settle "$SETTLE" --store "$M/store.db" --format json >"$M/out.json"
python3 - "$M/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for e in j["phases"]:
    p = e["phase"]
    line = "%-8s %7.1f s  %9.0f ins/s  %9.1f q/s  stall %.2f s" % (p["phase"], p["seconds"], p["inserts_per_s"], p["queries_per_s"], p["max_stall_s"])
    if p.get("target_inserts_per_s"):
        line += "  held %.4f of target (%s)  intervals at target %.0f%%  lag p99 %.3f ms" % (
            p["inserts_per_s"] / p["target_inserts_per_s"], "sustained" if p["sustained"] else "NOT sustained",
            p["intervals_at_target_pct"], p.get("schedule_lag_p99_ms") or 0)
    print(line)
PY
"$Q" server stop --name ibseq >/dev/null
