#!/usr/bin/env bash
# What monitoring costs: interleaved qpslab runs with the monitor at 1 s
# sampling (the default) and with --no-monitor, same workload and threads,
# several rounds in A-B / B-A order; prints each round's QPS, the median
# ratio, and the monitor's own poll times from the last monitored run.
#
# Usage: bench/monitor_overhead.sh   env: THREADS=32 TIME=10 ROUNDS=6 WORKLOAD=oltp_point_select
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-32}; TIME=${TIME:-10}; ROUNDS=${ROUNDS:-6}
WORKLOAD=${WORKLOAD:-oltp_point_select}; TABLES=${TABLES:-4}; ROWS=${ROWS:-100000}
. bench/lib.sh
LAST=$(mktemp)
run() { "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$THREADS" --time "$TIME" \
          --no-store --format json "$@"; }
qps() { python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["qps"])'; }
on() { run | tee "$LAST" | qps; }
off() { run --no-monitor | qps; }
echo "# $WORKLOAD, $THREADS threads, $TIME s, monitor every 1 s vs --no-monitor, $ROUNDS rounds (alternating order)"
printf "%5s %12s %12s %8s\n" round monitor no_monitor ratio
ratios=()
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then a=$(on); b=$(off); else b=$(off); a=$(on); fi
  ratio=$(echo "$a / $b" | bc -l); ratios+=("$ratio")
  printf "%5s %12.0f %12.0f %8.4f\n" "$r" "$a" "$b" "$ratio"
done
printf "median ratio (monitor / no monitor): %.4f\n" "$(printf "%s\n" "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')"
python3 - "$LAST" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["monitor"]
print("monitor poll cost in the last monitored run (mean / max ms, polls):")
for k, v in sorted(m["sources"].items()):
    print(f"  {k:16s} {v['mean_ms']:7.2f} / {v['max_ms']:7.2f}  {v['polls']}")
e = m["efficiency"]
print(f"monitor thread CPU: {e.get('monitor_cpu_us_per_s') or 0:.0f} us per second of run")
PY

# The monitor's cost on an idle server, free of load noise: server CPU per
# second with `qpslab monitor` polling vs without, and the monitor's own CPU.
PID=$(cat "$QPSLAB_HOME/sandboxes/bench/mysqld.pid")
IDLE=${IDLE:-20}
c0=$(proc_cpu "$PID"); sleep "$IDLE"; c1=$(proc_cpu "$PID")
"$Q" monitor --server bench --create --time "$IDLE" --quiet --no-store 2>/dev/null & MON=$!
sleep 1; m0=$(proc_cpu "$MON"); c2=$(proc_cpu "$PID"); sleep $((IDLE - 2)); c3=$(proc_cpu "$PID"); m1=$(proc_cpu "$MON"); wait $MON
python3 - "$c0" "$c1" "$c2" "$c3" "$m0" "$m1" "$IDLE" "$(nproc)" <<'PY'
import sys
c0, c1, c2, c3, m0, m1, idle, n = map(float, sys.argv[1:])
base = (c1 - c0) / idle; mon = (c3 - c2) / (idle - 2); own = (m1 - m0) / (idle - 2)
print(f"idle server CPU: {base*1e3:.2f} ms/s unmonitored, {mon*1e3:.2f} ms/s monitored; monitor process {own*1e3:.2f} ms/s")
print(f"monitoring cost: {(mon - base + own)*1e3:.2f} ms CPU per second = {(mon - base + own)/n*100:.3f}% of {n:.0f} CPUs")
PY
