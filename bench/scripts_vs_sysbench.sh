#!/usr/bin/env bash
# sysbench's own Lua scripts under qpslab, against sysbench running them and
# against qpslab's native workload of the same name, on the same sandbox
# MariaDB, interleaved (the order of the three rotates each round).
#
# For each workload and thread count it prints each tool's QPS, client CPU
# per query (the process's own user+sys from /usr/bin/time, connection
# set-up and script loading included, monitor on, defaults) and peak RSS,
# then medians over the rounds with the ratios script/sysbench (CPU, QPS)
# and script/native (CPU), and each tool's peak QPS over the thread counts.
#
# Usage: bench/scripts_vs_sysbench.sh
#   env: THREADS="16 64 256 1024" TIME=10 ROUNDS=3 TABLES=4 ROWS=100000
#        WORKLOADS="oltp_point_select oltp_read_write"
# Results go to stdout and bench/results/scripts-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"16 64 256 1024"}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
WORKLOAD=oltp_read_write
source bench/lib.sh
mkdir -p bench/results
OUT=bench/results/scripts-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# $($Q --version), $(sysbench --version), server $(mariadb -uroot --socket="$SOCK" -N -e 'SELECT VERSION()')"
echo "# $TABLES tables x $ROWS rows, $TIME s per point, $ROUNDS rounds"
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")

source bench/measure.sh

printf "%-18s %6s %5s | %9s %8s | %9s %8s %7s | %9s %8s\n" workload threads round sb_qps sb_us lua_qps lua_us lua_MB nat_qps nat_us
for w in $WORKLOADS; do
  for th in $THREADS; do
    for r in $(seq 1 "$ROUNDS"); do
      common=(--server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0 --no-store)
      declare -A res=()
      order=(sb lua nat)
      for k in $(seq 1 $(( (r - 1) % 3 ))); do order=("${order[@]:1}" "${order[0]}"); done
      for tool in "${order[@]}"; do
        case $tool in
          sb) res[sb]=$(one sb "${SB[@]}" --threads="$th" --time="$TIME" --report-interval=0 "$w" run) ;;
          lua) res[lua]=$(one lua "$Q" run "/usr/share/sysbench/$w.lua" "${common[@]}") ;;
          nat) res[nat]=$(one nat "$Q" run "$w" "${common[@]}") ;;
        esac
      done
      read -r sq su _ <<<"${res[sb]}"; read -r lq lu lm <<<"${res[lua]}"; read -r nq nu _ <<<"${res[nat]}"
      printf "%-18s %6s %5s | %9s %8s | %9s %8s %7s | %9s %8s\n" "$w" "$th" "$r" "$sq" "$su" "$lq" "$lu" "$lm" "$nq" "$nu" | tee -a "$OUT.rows"
    done
  done
done

echo; echo "== medians over $ROUNDS rounds"
printf "%-18s %6s | %9s %8s | %9s %8s %7s | %9s %8s | %9s %9s %9s\n" workload threads sb_qps sb_us lua_qps lua_us lua_MB nat_qps nat_us cpu_lua/sb cpu_lua/nat qps_lua/sb
med() { sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for w in $WORKLOADS; do
  for th in $THREADS; do
    rows=$(awk -v w="$w" -v t="$th" '$1==w && $2==t && $5!="-" && $8!="-" && $12!="-"' "$OUT.rows")
    [ -n "$rows" ] || continue
    m() { echo "$rows" | awk -v c="$1" '{gsub(/\|/,""); print $c}' | awk 'NF' | med; }
    # Ratios are taken within each round, then their median.
    rm_() { echo "$rows" | awk -v a="$1" -v b="$2" '{gsub(/\|/,""); if ($b > 0) print $a / $b}' | med; }
    printf "%-18s %6s | %9.0f %8.2f | %9.0f %8.2f %7.1f | %9.0f %8.2f | %9.2f %9.2f %9.2f\n" "$w" "$th" \
      "$(m 4)" "$(m 5)" "$(m 6)" "$(m 7)" "$(m 8)" "$(m 9)" "$(m 10)" "$(rm_ 7 5)" "$(rm_ 7 10)" "$(rm_ 6 4)"
  done
  peak() { awk -v w="$w" -v c="$1" '$1==w {gsub(/\|/,""); if ($c+0 > p) p = $c+0} END{print p+0}' "$OUT.rows"; }
  sbp=$(peak 4); luap=$(peak 6); natp=$(peak 9)
  printf "%s peak QPS: sysbench %s, qpslab+script %s (%.2fx sysbench), qpslab native %s\n" "$w" "$sbp" "$luap" "$(echo "$luap / $sbp" | bc -l)" "$natp"
done
rm -f "$OUT.rows"
echo; echo "results saved in $OUT"
