#!/usr/bin/env bash
# qpslab vs sysbench on the same sandbox MariaDB, interleaved.
#
# For each workload and thread count it runs sysbench, then qpslab, same
# options, and prints each tool's QPS, client CPU per query (the process's
# own user+sys time from /usr/bin/time, connection set-up included, divided
# by queries) and the ratios. It also times both tools' prepare of
# TABLES x ROWS and reports qpslab's peak RSS at the largest thread count.
#
# Usage: bench/vs_sysbench.sh [--quick]
#   env: THREADS="1 4 16 64 256 1024" TIME=10 TABLES=8 ROWS=1000000 ROUNDS=1
# Results go to stdout and bench/results/<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 4 16 64 256 1024"}
TIME=${TIME:-10}
TABLES=${TABLES:-8}
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
if [ "${1:-}" = "--quick" ]; then THREADS="1 16 64"; TIME=3; ROWS=100000; fi
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r)"
echo "# $($Q --version), $(sysbench --version)"
"$Q" server start --name bench --profile bench >/dev/null
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
echo "# server: $(mariadb -uroot --socket="$SOCK" -N -e 'SELECT VERSION()'), sandbox profile bench, socket $SOCK"
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
QP=("$Q")

cpu_time() { # prints "user+sys maxrss_kb" of the command, its stdout to $1
  local out=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$out.time" "$@" > "$out" 2>&1 || true
  awk '{printf "%.3f %d\n", $1+$2, $3}' "$out.time"
}

echo; echo "== prepare $TABLES x $ROWS"
"$Q" cleanup oltp_read_write --server bench --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "${SB[@]}" oltp_read_write prepare >/dev/null; t1=$(date +%s.%N)
SB1_PREP=$(echo "$t1 - $t0" | bc)
"$Q" cleanup oltp_read_write --server bench --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "${SB[@]}" --threads="$TABLES" oltp_read_write prepare >/dev/null; t1=$(date +%s.%N)
SB_PREP=$(echo "$t1 - $t0" | bc)
"$Q" cleanup oltp_read_write --server bench --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "$Q" prepare oltp_read_write --server bench --tables "$TABLES" --table-size "$ROWS" >/dev/null; t1=$(date +%s.%N)
QP_PREP=$(echo "$t1 - $t0" | bc)
printf "prepare  sysbench (default --threads=1) %.1f s   sysbench --threads=%s %.1f s   qpslab %.1f s\n" "$SB1_PREP" "$TABLES" "$SB_PREP" "$QP_PREP"
printf "prepare  speed-up vs sysbench default %.2fx, vs sysbench --threads=%s %.2fx\n" "$(echo "$SB1_PREP / $QP_PREP" | bc -l)" "$TABLES" "$(echo "$SB_PREP / $QP_PREP" | bc -l)"

echo
printf "%-18s %6s %5s | %10s %9s | %10s %9s %8s | %7s %7s | %8s %7s\n" workload threads round sb_qps sb_us/q qp_qps qp_us/q qp_rssMB qps_x cpu_x qp_load load_x
for w in $WORKLOADS; do
  for th in $THREADS; do
    for r in $(seq 1 "$ROUNDS"); do
      T=$(mktemp)
      read -r sb_cpu _ < <(cpu_time "$T.sb" "${SB[@]}" --threads="$th" --time="$TIME" --report-interval=0 "$w" run)
      sb_q=$(awk '/queries:/ && /per sec/{print $2}' "$T.sb")
      sb_qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$T.sb")
      read -r qp_cpu qp_rss < <(cpu_time "$T.qp" "${QP[@]}" run "$w" --server bench --tables "$TABLES" --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0)
      qp_q=$(awk '/queries:/ && /per sec/{print $2}' "$T.qp")
      qp_qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$T.qp")
      if [ -z "$sb_q" ] || [ -z "$qp_q" ]; then echo "$w $th: a run failed:"; tail -n 3 "$T.sb" "$T.qp"; continue; fi
      sb_us=$(echo "$sb_cpu * 1000000 / $sb_q" | bc -l); qp_us=$(echo "$qp_cpu * 1000000 / $qp_q" | bc -l)
      qp_load=$(awk '/load CPU per query:/{print $5}' "$T.qp")
      printf "%-18s %6s %5s | %10.0f %9.2f | %10.0f %9.2f %8.1f | %7.2f %7.2f | %8.2f %7.2f\n" "$w" "$th" "$r" "$sb_qps" "$sb_us" "$qp_qps" "$qp_us" "$(echo "$qp_rss/1024" | bc -l)" \
        "$(echo "$qp_qps / $sb_qps" | bc -l)" "$(echo "$qp_us / $sb_us" | bc -l)" "${qp_load:-0}" "$(echo "${qp_load:-0} / $sb_us" | bc -l)" | tee -a "$OUT.rows"
      rm -f "$T" "$T".*
    done
  done
done
echo; echo "== medians over $ROUNDS rounds"
printf "%-18s %6s | %10s %9s | %10s %9s %8s | %7s %7s | %8s %7s\n" workload threads sb_qps sb_us/q qp_qps qp_us/q qp_rssMB qps_x cpu_x qp_load load_x
med() { sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for w in $WORKLOADS; do for th in $THREADS; do
  rows=$(awk -v w="$w" -v t="$th" '$1==w && $2==t' "$OUT.rows")
  [ -n "$rows" ] || continue
  m() { echo "$rows" | awk -v c="$1" '{gsub(/\|/,""); print $c}' | med; }
  printf "%-18s %6s | %10.0f %9.2f | %10.0f %9.2f %8.1f | %7.2f %7.2f | %8.2f %7.2f\n" "$w" "$th" "$(m 4)" "$(m 5)" "$(m 6)" "$(m 7)" "$(m 8)" "$(m 9)" "$(m 10)" "$(m 11)" "$(m 12)"
done; done
rm -f "$OUT.rows"
echo; echo "qps_x = qpslab QPS / sysbench QPS; cpu_x = qpslab whole-process CPU per query / sysbench's (lower is better);"
echo "qp_load = qpslab's load threads' CPU per query (its 'load CPU per query', monitor and store left out); load_x = qp_load / sysbench's whole-process us/q"
echo "results saved in $OUT"
