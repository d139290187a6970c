#!/usr/bin/env bash
# LinkBench's request phase: qpslab's client CPU per operation beside the
# server's CPU per operation, at each USERS count, on a graph of MAXID1
# nodes (prepared once). The client's is the qpslab process's CPU (load
# threads and tool) over the measured operations; the server's is the
# monitor's server CPU per query times queries per operation. Runs are
# stored in bench/results/linkbench-cpu.db.
#
# Usage: bench/linkbench_cpu.sh
#   env: MAXID1=100001 USERS="16 64" TIME=30
set -euo pipefail
cd "$(dirname "$0")/.."
MAXID1=${MAXID1:-100001}
USERS=${USERS:-"16 64"}
TIME=${TIME:-30}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
STORE=bench/results/linkbench-cpu.db
"$Q" server start --name bench --preset bench >/dev/null
if ! "$Q" check linkbench --server bench --db lbcpu --maxid1 "$MAXID1" >/dev/null 2>&1; then
  "$Q" prepare linkbench --server bench --db lbcpu --create --maxid1 "$MAXID1" >/dev/null
fi
echo "LinkBench request phase: maxid1 $MAXID1, $TIME s per point, $(nproc) CPUs"
echo "users  ops/s  client_us/op  server_us/op  client/server"
for u in $USERS; do
  "$Q" run linkbench --server bench --db lbcpu --maxid1 "$MAXID1" --threads "$u" --time "$TIME" \
    --warmup-time 5 --store "$STORE" --format json >/dev/null
  "$Q" runs --store "$STORE" --format json | python3 -c '
import json, sys
r = max(json.load(sys.stdin), key=lambda r: r["id"])
events = r["tps"] * r["seconds"]
q_per_op = r["qps"] / r["tps"]
client = r["client_cpu_s"] * 1e6 / events
server = (r["server_us_per_q"] or float("nan")) * q_per_op
print("%5d %6.0f %13.1f %13.1f %14.3f" % (r["threads"], r["tps"], client, server, client / server))
'
done
