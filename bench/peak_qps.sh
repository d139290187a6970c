#!/usr/bin/env bash
# Peak QPS, qpslab against sysbench on the same sandbox (issue 37 item 1).
#
# For each round, thread count and tool, interleaved: Debian's sysbench,
# then qpslab with each of VARIANTS (client threading choices), the same
# point-select load, default monitoring; whole processes under
# /usr/bin/time. Prints each run's QPS and CPU per query, the medians and
# their ratios against sysbench's, and each tool's peak (its best thread
# count by median QPS) with the peak ratio and its interval (the lowest
# and highest of the rounds' own peak ratios). Beside each run: the
# server's CPU per query over the same whole run (connection set-up
# included) and the host's idle share, which say where the CPUs went.
#
# CPUS pins the server (server start --cpus) and both clients (taskset)
# to one CPU set, e.g. CPUS=0-1 makes a 2-CPU host of a bigger one; empty
# leaves everything on every CPU.
#
# Usage: bench/peak_qps.sh
#   env: THREADS="1 4 8 16 64" TIME=5 ROUNDS=3 TABLES=4 ROWS=20000 CPUS=
#        VARIANTS="auto:" (name:flags|name:flags…; {T} in flags is the
#        thread count), e.g.
#        VARIANTS="auto:|normal:--client-sched normal|perconn:--client-shards {T} --client-sched normal"
#        Q=path/to/qpslab
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 4 8 16 64"}
TIME=${TIME:-5}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-20000}
CPUS=${CPUS:-}
VARIANTS=${VARIANTS:-"auto:"}
WORKLOAD=oltp_point_select
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=${Q:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
command -v sysbench >/dev/null || { echo "peak_qps: sysbench is not installed (apt-get install sysbench)" >&2; exit 1; }
PIN=()
if [ -n "$CPUS" ]; then
  command -v taskset >/dev/null || { echo "peak_qps: CPUS needs taskset (util-linux)" >&2; exit 1; }
  PIN=(taskset -c "$CPUS")
fi
"$Q" server stop --name bench >/dev/null 2>&1 || true
"$Q" server start --name bench --preset bench ${CPUS:+--cpus "$CPUS"} >/dev/null
if ! "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --events 1 --no-store --no-monitor >/dev/null 2>&1; then
  "$Q" cleanup "$WORKLOAD" --server bench --create --tables "$TABLES" >/dev/null 2>&1 || true
  "$Q" prepare "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" >/dev/null
fi
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
SPID=$("$Q" server status --name bench | sed -n 's/.*(pid \([0-9]*\)).*/\1/p' | head -1)
TICK=$(getconf CLK_TCK)
# the server's user+sys CPU ticks so far; the host's idle and total ticks
srv_ticks() { awk '{print $14 + $15}' "/proc/$SPID/stat"; }
host_ticks() { awk '/^cpu /{t=0; for(i=2;i<=NF;i++) t+=$i; print $5 + $6, t}' /proc/stat; }
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
ROWS_OUT=$(mktemp)
trap 'rm -f "$ROWS_OUT"' EXIT

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r); pinned to: ${CPUS:-all CPUs}"
echo "# $("$Q" --version), $(sysbench --version); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS='|' read -r -a VARS <<<"$VARIANTS"
names() { echo sysbench; for v in "${VARS[@]}"; do echo "qpslab-${v%%:*}"; done; }

printf "%5s %7s %-16s | %10s %8s | %8s %6s\n" round threads tool qps us/q srv_us/q idle%
for r in $(seq 1 "$ROUNDS"); do
  for th in $THREADS; do
    for tool in $(names); do
      T=$(mktemp)
      s0=$(srv_ticks); read -r i0 t0 < <(host_ticks)
      if [ "$tool" = sysbench ]; then
        /usr/bin/time -f "%U %S" -o "$T.time" "${PIN[@]}" "${SB[@]}" --threads="$th" --time="$TIME" \
          --report-interval=0 "$WORKLOAD" run >"$T" 2>&1 || true
      else
        flags=""
        for v in "${VARS[@]}"; do [ "qpslab-${v%%:*}" = "$tool" ] && flags=${v#*:}; done
        read -r -a extra <<<"${flags//\{T\}/$th}"
        /usr/bin/time -f "%U %S" -o "$T.time" "${PIN[@]}" "$Q" run "$WORKLOAD" --server bench --create \
          --tables "$TABLES" --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0 \
          "${extra[@]}" >"$T" 2>&1 || true
      fi
      s1=$(srv_ticks); read -r i1 t1 < <(host_ticks)
      q=$(awk '/queries:/ && /per sec/{print $2}' "$T")
      qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$T")
      if [ -z "$q" ]; then echo "round $r, $th threads, $tool: the run failed:"; tail -n 3 "$T"; rm -f "$T" "$T".*; continue; fi
      us=$(awk -v q="$q" '{printf "%.3f", ($1 + $2) * 1e6 / q}' "$T.time")
      srv=$(awk -v q="$q" -v d=$((s1 - s0)) -v hz="$TICK" 'BEGIN{printf "%.3f", d / hz * 1e6 / q}')
      idle=$(awk -v i=$((i1 - i0)) -v t=$((t1 - t0)) 'BEGIN{printf "%.1f", t ? 100 * i / t : 0}')
      printf "%5s %7s %-16s | %10.0f %8s | %8s %6s\n" "$r" "$th" "$tool" "$qps" "$us" "$srv" "$idle" | tee -a "$ROWS_OUT"
      rm -f "$T" "$T".*
    done
  done
done

echo
echo "== medians of $ROUNDS rounds; qps_x and cpu_x against sysbench's medians at the same thread count"
printf "%7s %-16s | %10s %8s | %6s %6s | %8s %6s\n" threads tool qps us/q qps_x cpu_x srv_us/q idle%
awk -v tools="$(names | tr '\n' ' ')" -v threads="$THREADS" '
  function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  { gsub(/\|/, ""); k = $2 SUBSEP $3; n[k]++; Q[k, n[k]] = $4; U[k, n[k]] = $5; S[k, n[k]] = $6; I[k, n[k]] = $7; R[$1, $2, $3] = $4; rounds[$1] = 1 }
  END {
    nt = split(tools, tl, " "); nh = split(threads, th, " ")
    for (i = 1; i <= nt; i++) for (j = 1; j <= nh; j++) {
      k = th[j] SUBSEP tl[i]; if (!n[k]) continue
      delete a; delete b; delete c; delete d
      for (m = 1; m <= n[k]; m++) { a[m] = Q[k, m]; b[m] = U[k, m]; c[m] = S[k, m]; d[m] = I[k, m] }
      mq[k] = med(a, n[k]); mu[k] = med(b, n[k]); ms[k] = med(c, n[k]); mi[k] = med(d, n[k])
    }
    for (j = 1; j <= nh; j++) for (i = 1; i <= nt; i++) {
      k = th[j] SUBSEP tl[i]; s = th[j] SUBSEP "sysbench"; if (!(k in mq)) continue
      printf "%7s %-16s | %10.0f %8.2f | %6.3f %6.3f | %8.2f %6.1f\n", th[j], tl[i], mq[k], mu[k],
        (s in mq) ? mq[k] / mq[s] : 0, (s in mu) ? mu[k] / mu[s] : 0, ms[k], mi[k]
    }
    print ""
    print "== peaks: each tool at its best thread count by median QPS; interval = the lowest and highest peak ratio of a round"
    print "   (a round peak ratio: its best QPS at any thread count over the best sysbench QPS in that round)"
    for (i = 1; i <= nt; i++) {
      best = 0; bt = ""
      for (j = 1; j <= nh; j++) { k = th[j] SUBSEP tl[i]; if ((k in mq) && mq[k] > best) { best = mq[k]; bt = th[j] } }
      peak[tl[i]] = best; at[tl[i]] = bt
    }
    for (i = 1; i <= nt; i++) {
      t = tl[i]; lo = 1e18; hi = 0
      for (r in rounds) {
        pb = 0; ps = 0
        for (j = 1; j <= nh; j++) { if (R[r, th[j], t] > pb) pb = R[r, th[j], t]; if (R[r, th[j], "sysbench"] > ps) ps = R[r, th[j], "sysbench"] }
        if (ps > 0 && pb > 0) { x = pb / ps; if (x < lo) lo = x; if (x > hi) hi = x }
      }
      printf "%-16s peak %10.0f at %4s threads | peak ratio %.3f (rounds %.3f-%.3f)\n", t, peak[t], at[t],
        peak["sysbench"] ? peak[t] / peak["sysbench"] : 0, lo, hi
    }
  }' "$ROWS_OUT"
echo
echo "us/q = the whole process's user+sys CPU (/usr/bin/time; connection set-up, monitor and store included) per query;"
echo "srv_us/q = the server's (mariadbd's) user+sys CPU over the same whole run per query; idle% = the host's idle+iowait share meanwhile."
