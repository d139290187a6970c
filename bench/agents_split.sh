#!/usr/bin/env bash
# Issue 36's goal: 4 agents x 64 connections give the same total QPS as one
# process with 256 connections on the same host (the split costs nothing
# measurable). Interleaved rounds: one process (--threads 256), then four
# agents on 127.0.0.1 (--agents, 64 each), against one sandbox bound to
# 127.0.0.1; prints each round's QPS and the medians and their ratio.
# Also the agents' own overhead: each agent's process CPU outside its load
# threads (its HTTP server, the intervals' encoding) as a share of its
# load threads' CPU, beside the same share of the one process (whose
# reporter and clock do the rest of that work too); the difference is
# what being an agent costs.
#
# Usage: bench/agents_split.sh [BIN]
#   env: TIME=20 ROUNDS=3 TABLES=4 ROWS=100000 WORKLOAD=oltp_point_select
#        ONE_OPTS="…" options of the one process alone, AGENT_OPTS="…" of the
#        agents' run alone (e.g. ONE_OPTS="--client-shards 4"
#        AGENT_OPTS="--client-shards 1": the same four load threads on both
#        sides, so that only the split differs)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/qpslab}
TIME=${TIME:-20}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
WORKLOAD=${WORKLOAD:-oltp_point_select}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
SERVER=${SERVER:-agents}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
"$BIN" server start --name "$SERVER" --preset bench --set max_connections=600 >/dev/null
SOCK="$QPSLAB_HOME/sandboxes/$SERVER/mysqld.sock"
PORT=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$QPSLAB_HOME/sandboxes/$SERVER/meta.json")
mariadb -uroot --socket="$SOCK" -e "CREATE USER IF NOT EXISTS 'bench'@'127.0.0.1' IDENTIFIED BY 'bench'; GRANT ALL ON *.* TO 'bench'@'127.0.0.1'; CREATE DATABASE IF NOT EXISTS sbtest"
if ! "$BIN" run "$WORKLOAD" --server "$SERVER" --tables "$TABLES" --table-size "$ROWS" --time 1 --no-store >/dev/null 2>&1; then
  "$BIN" prepare "$WORKLOAD" --server "$SERVER" --tables "$TABLES" --table-size "$ROWS" >/dev/null
fi
TOKEN=$(mktemp)
DUMPS=$(mktemp -d)
head -c 24 /dev/urandom | base64 > "$TOKEN"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TOKEN" "$DUMPS"; }
trap cleanup EXIT
AGENTS=""
for i in 0 1 2 3; do
  port=$((17400 + i))
  "$BIN" agent --listen "127.0.0.1:$port" --token-file "$TOKEN" --dump "$DUMPS/$i.json" >/dev/null &
  PIDS+=("$!")
  AGENTS="${AGENTS:+$AGENTS,}127.0.0.1:$port"
done
sleep 1
COMMON=(--mysql-host 127.0.0.1 --mysql-port "$PORT" --mysql-user bench --mysql-password bench
  --tables "$TABLES" --table-size "$ROWS" --threads 256 --time "$TIME" --no-store --format json)
qps() { python3 -c "import json,sys; print(round(json.load(sys.stdin)['totals']['qps'], 1))"; }
# the load threads' CPU a query (all agents' together in a merged run)
load_us() { python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['client']['load_cpu_us_per_query'], 2))" "$1"; }
# one process: its CPU outside the load threads over its load threads' CPU
own() { python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['client']; print(round((c['process_cpu_seconds']-c['load_cpu_seconds'])/c['load_cpu_seconds']*100, 2))" "$1"; }
# the agents: the same from what each sent at its end
agents_own() { python3 -c "
import json,glob,sys
p=l=0.0
for f in glob.glob(sys.argv[1]+'/*.json'):
    d=json.load(open(f))['done']; p+=d['client_cpu_s']; l+=d['total']['load_cpu_s']
print(round((p-l)/l*100, 2))" "$DUMPS"; }
# what shipping cost the agents (their HTTP thread between the first and
# last poll, and encoding the intervals), as a share of their load CPU
agents_ship() { python3 -c "
import json,glob,sys
s=l=0.0
for f in glob.glob(sys.argv[1]+'/*.json'):
    d=json.load(open(f))['done']; s+=d.get('shipping_cpu_s',0.0); l+=d['total']['load_cpu_s']
print(round(s/l*100, 3))" "$DUMPS"; }
one=() split=() own_one=() own_agents=() ship=()
OUT=$(mktemp)
for r in $(seq 1 "$ROUNDS"); do
  echo "# round $r: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  # shellcheck disable=SC2086
  "$BIN" run "$WORKLOAD" "${COMMON[@]}" ${ONE_OPTS:-} 2>/dev/null >"$OUT"
  a=$(qps <"$OUT"); oa=$(own "$OUT"); ua=$(load_us "$OUT")
  # shellcheck disable=SC2086
  "$BIN" run "$WORKLOAD" "${COMMON[@]}" ${AGENT_OPTS:-} --agents "$AGENTS" --token-file "$TOKEN" 2>/dev/null >"$OUT"
  b=$(qps <"$OUT"); ob=$(agents_own); sh=$(agents_ship); ub=$(load_us "$OUT")
  echo "round $r: one process $a qps, 4 agents x 64 $b qps; load CPU a query: one process $ua us, agents $ub us; CPU outside the load threads: one process $oa%, agents $ob% of their load CPU; shipping (RPC + encoding) $sh%"
  one+=("$a") split+=("$b") own_one+=("$oa") own_agents+=("$ob") ship+=("$sh")
done
rm -f "$OUT"
python3 - "${one[*]}" "${split[*]}" "${own_one[*]}" "${own_agents[*]}" "${ship[*]}" <<'PY'
import statistics, sys
a, b, oa, ob, sh = ([float(x) for x in s.split()] for s in sys.argv[1:6])
ma, mb = statistics.median(a), statistics.median(b)
print(f"median: one process {ma:.1f} qps, 4 agents {mb:.1f} qps, ratio {mb / ma:.3f}")
ra = [y / x for x, y in zip(a, b)]
print(f"per-round ratios: {' '.join(f'{r:.3f}' for r in ra)}")
moa, mob = statistics.median(oa), statistics.median(ob)
print(f"median CPU outside the load threads: one process {moa:.2f}%, agents {mob:.2f}% of load CPU; the agents' own overhead {mob - moa:+.2f} points")
print(f"median shipping (the agents' RPC thread and interval encoding): {statistics.median(sh):.3f}% of their load CPU")
PY
