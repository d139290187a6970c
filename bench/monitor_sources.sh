#!/usr/bin/env bash
# What each monitor source costs, source by source, in CPU.
#
# A 1 s poll costs too little to see in QPS against this host's run-to-run
# noise (a first version compared QPS at 10x the poll rate: rounds moved
# ±30%). So each source (the /proc ones together) is polled alone by
# `qpslab monitor` at HZ=100 times its default rate for SECS seconds while IDLE_CONNS idle
# connections are open (SHOW GLOBAL STATUS and the thread list grow with
# connections), and the CPU it takes is read from outside: the server's
# (/proc/PID/stat, minus the same window unmonitored) and the monitor
# process's (/usr/bin/time, minus a run with every source off). Per poll,
# then at the source's default interval: CPU-ms per second and the share
# of the host's CPUs, which bounds what it can take from a CPU-bound peak.
#
# Usage: bench/monitor_sources.sh   env: SECS=10 IDLE_CONNS=32
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-20}; IDLE_CONNS=${IDLE_CONNS:-32}
WORKLOAD=oltp_point_select; TABLES=${TABLES:-4}; ROWS=${ROWS:-100000}
. bench/lib.sh
PID=$(cat "$QPSLAB_HOME/sandboxes/bench/mysqld.pid")
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
ALL="status innodb_metrics ps_waits ps_files innodb_status threads cpu server_proc server_tasks client_proc disk net mem pressure"
PROC="cpu server_proc server_tasks client_proc disk net mem pressure"
# name : sources : default interval (s)
SETS=("status:status:1" "innodb_metrics:innodb_metrics:1" "ps_waits:ps_waits:1" "ps_files:ps_files:1"
      "innodb_status:innodb_status:5" "threads:threads:5" "proc:${PROC// /,}:1")
HZ=${HZ:-100}
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $IDLE_CONNS idle connections, each source alone at $HZ times its default rate for $SECS s"
echo "# performance_schema: $(mariadb -uroot --socket="$SOCK" -N -e 'SELECT @@performance_schema')"
# idle connections held open for the whole measurement
for i in $(seq 1 "$IDLE_CONNS"); do mariadb -uroot --socket="$SOCK" -e "SELECT SLEEP(100000)" >/dev/null 2>&1 & done
IDLERS=$(jobs -p)
trap 'kill $IDLERS 2>/dev/null || true' EXIT
sleep 1
# one monitor run: prints "server_cpu_s monitor_cpu_s"
mon() { local t; t=$(mktemp)
  local c0; c0=$(proc_cpu "$PID")
  /usr/bin/time -f "%U %S" -o "$t" "$Q" monitor --server bench --create --time "$SECS" --quiet --no-store --monitor-budget 100 "$@" >/dev/null 2>&1 || true
  local c1; c1=$(proc_cpu "$PID")
  awk -v a="$c0" -v b="$c1" '{printf "%.4f %.4f\n", b - a, $1 + $2}' "$t"; rm -f "$t"; }
read -r base_srv base_mon < <(mon --monitor-off "${ALL// /,}")
printf "%-16s %14s %14s %16s %12s\n" source "server us/poll" "monitor us/poll" "CPU-ms/s default" "% of host"
for s in "${SETS[@]}"; do
  IFS=: read -r name srcs every <<< "$s"
  off=$(for x in $ALL; do case ",$srcs," in *",$x,"*) ;; *) printf "%s," "$x";; esac; done)
  # the base interval at 1/HZ: each source polled at HZ / its default interval
  read -r srv m < <(mon --monitor-off "${off%,}" --monitor-interval "$(echo "1 / $HZ" | bc -l)")
  polls=$(echo "$SECS * $HZ / $every" | bc)
  python3 - "$name" "$srv" "$m" "$base_srv" "$base_mon" "$polls" "$every" "$(nproc)" <<'PY'
import sys
name = sys.argv[1]; srv, m, bs, bm = map(float, sys.argv[2:6]); polls, every, n = int(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8])
sp = max(srv - bs, 0) / polls * 1e6; mp = max(m - bm, 0) / polls * 1e6
ms_s = (sp + mp) / every / 1e3
print(f"{name:16s} {sp:14.0f} {mp:14.0f} {ms_s:16.3f} {ms_s / 10 / n:11.3f}%")
PY
done
echo "baseline (every source off, $SECS s): server $base_srv s CPU, monitor process $base_mon s CPU"
