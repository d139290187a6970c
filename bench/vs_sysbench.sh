#!/usr/bin/env bash
# qpslab vs sysbench on the same sandbox MariaDB, interleaved.
#
# For each workload, thread count and round it runs sysbench, then qpslab
# with each I/O backend (BACKENDS), same options, default monitoring, and
# prints per run: QPS, whole-process CPU per query (user+sys from
# /usr/bin/time, connection set-up included), qpslab's load-thread CPU per
# query, system calls per query (perf stat, when perf can count
# raw_syscalls here) and peak RSS; then the medians and ratios against
# sysbench's median. It first times both tools' prepare of TABLES x ROWS
# (SKIP_PREPARE=1: reuse the tables already there).
#
# Usage: bench/vs_sysbench.sh [--quick]
#   env: THREADS="1 4 16 64 256 1024" TIME=10 TABLES=8 ROWS=1000000 ROUNDS=3
#        BACKENDS="auto epoll uring" WORKLOADS="oltp_point_select oltp_read_write"
# Results go to stdout and bench/results/<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 4 16 64 256 1024"}
TIME=${TIME:-10}
TABLES=${TABLES:-8}
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
BACKENDS=${BACKENDS:-"auto epoll uring"}
SKIP_PREPARE=${SKIP_PREPARE:-0}
if [ "${1:-}" = "--quick" ]; then THREADS="1 16 64"; TIME=3; ROWS=100000; fi
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
mkdir -p bench/results
OUT=bench/results/$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1

echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r)"
echo "# $($Q --version), $(sysbench --version)"
"$Q" server start --name bench --preset bench >/dev/null
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
echo "# server: $(mariadb -uroot --socket="$SOCK" -N -e 'SELECT VERSION()'), sandbox profile bench, socket $SOCK"
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
QP=("$Q")

if [ "$SKIP_PREPARE" != 1 ]; then
echo; echo "== prepare $TABLES x $ROWS"
"$Q" cleanup oltp_read_write --server bench --create --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "${SB[@]}" oltp_read_write prepare >/dev/null; t1=$(date +%s.%N)
SB1_PREP=$(echo "$t1 - $t0" | bc)
"$Q" cleanup oltp_read_write --server bench --create --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "${SB[@]}" --threads="$TABLES" oltp_read_write prepare >/dev/null; t1=$(date +%s.%N)
SB_PREP=$(echo "$t1 - $t0" | bc)
"$Q" cleanup oltp_read_write --server bench --create --tables "$TABLES" >/dev/null
t0=$(date +%s.%N); "$Q" prepare oltp_read_write --server bench --create --tables "$TABLES" --table-size "$ROWS" >/dev/null; t1=$(date +%s.%N)
QP_PREP=$(echo "$t1 - $t0" | bc)
printf "prepare  sysbench (default --threads=1) %.1f s   sysbench --threads=%s %.1f s   qpslab %.1f s\n" "$SB1_PREP" "$TABLES" "$SB_PREP" "$QP_PREP"
printf "prepare  speed-up vs sysbench default %.2fx, vs sysbench --threads=%s %.2fx\n" "$(echo "$SB1_PREP / $QP_PREP" | bc -l)" "$TABLES" "$(echo "$SB_PREP / $QP_PREP" | bc -l)"
fi

echo "# load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
HAVE_PERF=0
if command -v perf >/dev/null && perf stat -x, -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null; then HAVE_PERF=1; fi
[ "$HAVE_PERF" = 1 ] || echo "# perf cannot count raw_syscalls:sys_enter here: syscalls/query shown as -"

# One measured run: "cpu_s rss_kb syscalls" of the command, its output to $1.
measure() {
  local out=$1; shift
  if [ "$HAVE_PERF" = 1 ]; then
    /usr/bin/time -f "%U %S %M" -o "$out.time" perf stat -x, -e raw_syscalls:sys_enter -o "$out.perf" "$@" > "$out" 2>&1 || true
  else
    /usr/bin/time -f "%U %S %M" -o "$out.time" "$@" > "$out" 2>&1 || true
  fi
  local sc=-
  [ -s "$out.perf" ] && sc=$(awk -F, '/raw_syscalls/{print $1}' "$out.perf")
  # perf's own CPU is in /usr/bin/time's figure only as perf's (tiny)
  # counting set-up; the counted process is perf's child.
  awk -v sc="$sc" '{printf "%.3f %d %s\n", $1+$2, $3, sc}' "$out.time"
}

echo
printf "%-18s %6s %5s %-14s | %10s %9s %9s %9s %8s\n" workload threads round tool qps us/q load_us/q sysc/q rssMB
for w in $WORKLOADS; do
  for th in $THREADS; do
    for r in $(seq 1 "$ROUNDS"); do
      for tool in sysbench $(for b in $BACKENDS; do echo "qpslab-$b"; done); do
        T=$(mktemp)
        if [ "$tool" = sysbench ]; then
          read -r cpu rss sc < <(measure "$T" "${SB[@]}" --threads="$th" --time="$TIME" --report-interval=0 "$w" run)
        else
          read -r cpu rss sc < <(measure "$T" "${QP[@]}" run "$w" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0 --io-backend "${tool#qpslab-}")
        fi
        q=$(awk '/queries:/ && /per sec/{print $2}' "$T")
        qps=$(awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}' "$T")
        if [ -z "$q" ]; then echo "$w $th $tool: the run failed:"; tail -n 3 "$T"; rm -f "$T" "$T".*; continue; fi
        us=$(echo "$cpu * 1000000 / $q" | bc -l)
        if [ "$tool" = sysbench ]; then load=$us; else load=$(awk '/load CPU per query:/{print $5}' "$T"); fi
        scq=-; [ "$sc" != - ] && scq=$(echo "$sc / $q" | bc -l)
        printf "%-18s %6s %5s %-14s | %10.0f %9.2f %9.2f %9s %8.1f\n" "$w" "$th" "$r" "$tool" "$qps" "$us" "${load:-0}" \
          "$( [ "$scq" = - ] && echo - || printf %.2f "$scq")" "$(echo "$rss/1024" | bc -l)" | tee -a "$OUT.rows"
        rm -f "$T" "$T".*
      done
    done
  done
done
echo; echo "== medians over $ROUNDS rounds, ratios against sysbench's median in the same rounds"
printf "%-18s %6s %-14s | %10s %9s %9s %9s %8s | %6s %6s %6s\n" workload threads tool qps us/q load_us/q sysc/q rssMB qps_x cpu_x load_x
med() { sort -g | awk '{v[NR]=$1} END{if (NR==0) print "-"; else print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for w in $WORKLOADS; do for th in $THREADS; do
  m() { awk -v w="$w" -v t="$th" -v tool="$1" -v c="$2" '{gsub(/\|/,"")} $1==w && $2==t && $4==tool && $c!="-" {print $c}' "$OUT.rows" | med; }
  sq=$(m sysbench 5); su=$(m sysbench 6)
  for tool in sysbench $(for b in $BACKENDS; do echo "qpslab-$b"; done); do
    qps=$(m "$tool" 5); [ "$qps" = - ] && continue
    us=$(m "$tool" 6); load=$(m "$tool" 7); sc=$(m "$tool" 8); rss=$(m "$tool" 9)
    printf "%-18s %6s %-14s | %10.0f %9.2f %9.2f %9s %8.1f | %6.2f %6.2f %6.2f\n" "$w" "$th" "$tool" "$qps" "$us" "$load" "$sc" "$rss" \
      "$(echo "$qps / $sq" | bc -l)" "$(echo "$us / $su" | bc -l)" "$(echo "$load / $su" | bc -l)"
  done
done; done
rm -f "$OUT.rows"
echo
echo "us/q = the whole process's user+sys CPU (/usr/bin/time, connection set-up, monitor and store included) per query;"
echo "load_us/q = qpslab's load threads only ('load CPU per query'); sysbench's is its whole process."
echo "sysc/q = system calls per query of the whole process (perf stat raw_syscalls:sys_enter); rssMB = peak RSS."
echo "qps_x, cpu_x, load_x = the row's median over sysbench's (cpu_x and load_x: lower is better)."
echo "results saved in $OUT"
