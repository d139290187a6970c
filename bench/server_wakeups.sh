#!/usr/bin/env bash
# What each client's load makes the server do per query (issue 37 item 1):
# mariadbd's CPU, system calls, context switches and wake-ups per query
# under sysbench's load and under qpslab's, same sandbox, same point
# selects, interleaved rounds.
#
# For each round, thread count and tool: the tool runs TIME seconds; from
# its second 2 `perf stat` counts the server's task-clock,
# context-switches, raw_syscalls:sys_enter and sched:sched_wakeup over
# TIME-4 seconds (counting, not sampling: software events and
# tracepoints, which work without hardware counters). The tool's own
# QPS over its whole run divides them. Prints one row per run and the
# medians per thread count and tool.
#
# Why: on a host where client and server share the CPUs, QPS follows the
# client's plus the server's CPU per query. A client that finds each
# answer waiting (it never sleeps in its receive) leaves the server to
# find the socket empty and sleep in poll() instead: the saving moves
# from one process to the other. The syscall and wake-up counts show
# which side sleeps.
#
# Usage: bench/server_wakeups.sh
#   env: THREADS="4 8" TIME=8 ROUNDS=3 TABLES=4 ROWS=20000
#        VARIANTS="batch:|normal:--client-sched normal" (name:flags|…)
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"4 8"}
TIME=${TIME:-8}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-20000}
VARIANTS=${VARIANTS:-"batch:|normal:--client-sched normal"}
WORKLOAD=oltp_point_select
command -v sysbench >/dev/null || { echo "server_wakeups: sysbench is not installed (apt-get install sysbench)" >&2; exit 1; }
command -v perf >/dev/null || { echo "server_wakeups: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[ "$TIME" -ge 6 ] || { echo "server_wakeups: TIME must be at least 6 (perf counts from second 2 to TIME-2)" >&2; exit 1; }
. bench/lib.sh
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
SPID=$("$Q" server status --name bench | sed -n 's/.*(pid \([0-9]*\)).*/\1/p' | head -1)
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
WIN=$((TIME - 4))
ROWS_OUT=$(mktemp)
trap 'rm -f "$ROWS_OUT"' EXIT

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r)"
echo "# $("$Q" --version), $(sysbench --version); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS='|' read -r -a VARS <<<"$VARIANTS"
names() { echo sysbench; for v in "${VARS[@]}"; do echo "qpslab-${v%%:*}"; done; }

printf "%5s %7s %-16s | %8s | %8s %8s | %8s %8s %8s %8s\n" round threads tool qps cli_us/q cli_sc/q srv_us/q srv_sc/q srv_cs/q srv_wk/q
for r in $(seq 1 "$ROUNDS"); do
  for th in $THREADS; do
    for tool in $(names); do
      T=$(mktemp)
      if [ "$tool" = sysbench ]; then
        "${SB[@]}" --threads="$th" --time="$TIME" --report-interval=0 "$WORKLOAD" run >"$T" 2>&1 &
      else
        flags=""
        for v in "${VARS[@]}"; do [ "qpslab-${v%%:*}" = "$tool" ] && flags=${v#*:}; done
        read -r -a extra <<<"${flags//\{T\}/$th}"
        "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$th" \
          --time "$TIME" --report-interval 0 --no-store "${extra[@]}" >"$T" 2>&1 &
      fi
      P=$!
      sleep 2
      perf stat -x, -o "$T.cli" -p "$P" -e task-clock,raw_syscalls:sys_enter -- sleep "$WIN" 2>/dev/null &
      perf stat -x, -o "$T.stat" -p "$SPID" \
        -e task-clock,context-switches,raw_syscalls:sys_enter,sched:sched_wakeup -- sleep "$WIN" 2>/dev/null || true
      wait $! || true
      wait "$P" || true
      qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$T")
      if [ -z "$qps" ]; then echo "round $r, $th threads, $tool: the run failed:"; tail -n 3 "$T"; rm -f "$T" "$T".*; continue; fi
      # task-clock is in ms; the rest are counts over WIN seconds
      awk -F, -v qps="$qps" -v w="$WIN" -v r="$r" -v th="$th" -v tool="$tool" '
        FNR == 1 { f++ }
        /^[0-9]/ && f == 1 { if ($3 ~ /task-clock/) cc = $1 * 1000; else if ($3 ~ /sys_enter/) csc = $1 }
        /^[0-9]/ && f == 2 { if ($3 ~ /task-clock/) c = $1 * 1000; else if ($3 ~ /context-switches/) cs = $1;
                   else if ($3 ~ /sys_enter/) sc = $1; else if ($3 ~ /sched_wakeup/) wk = $1 }
        END { n = qps * w; printf "%5s %7s %-16s | %8.0f | %8.2f %8.3f | %8.2f %8.3f %8.3f %8.3f\n", r, th, tool, qps,
              cc / n, csc / n, c / n, sc / n, cs / n, wk / n }' \
        "$T.cli" "$T.stat" | tee -a "$ROWS_OUT"
      rm -f "$T" "$T".*
    done
  done
done

echo
echo "== medians of $ROUNDS rounds"
printf "%7s %-16s | %8s | %8s %8s | %8s %8s %8s %8s\n" threads tool qps cli_us/q cli_sc/q srv_us/q srv_sc/q srv_cs/q srv_wk/q
awk -v tools="$(names | tr '\n' ' ')" -v threads="$THREADS" '
  function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  { gsub(/\|/, ""); k = $2 SUBSEP $3; n[k]++; for (f = 4; f <= 10; f++) V[k, f, n[k]] = $f }
  END {
    nt = split(tools, tl, " "); nh = split(threads, th, " ")
    for (j = 1; j <= nh; j++) for (i = 1; i <= nt; i++) {
      k = th[j] SUBSEP tl[i]; if (!n[k]) continue
      printf "%7s %-16s |", th[j], tl[i]
      for (f = 4; f <= 10; f++) { delete a; for (m = 1; m <= n[k]; m++) a[m] = V[k, f, m]; printf (f == 4 ? " %8.0f |" : (f == 6 ? " %8.3f |" : " %8.3f")), med(a, n[k]) }
      print ""
    }
  }' "$ROWS_OUT"
echo
echo "cli_us/q, cli_sc/q = the load tool's task-clock and system calls per query over the counted window (perf stat -p);"
echo "srv_us/q = mariadbd's task-clock per query over the same window (its threads together);"
echo "srv_sc/q, srv_cs/q, srv_wk/q = the server's system calls, context switches, and wake-ups its threads make, per query."
"$Q" server stop --name bench >/dev/null 2>&1 || true
