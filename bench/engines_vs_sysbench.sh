#!/usr/bin/env bash
# qpslab vs sysbench on other server builds (MySQL 5.5.9 from the MXJ jar,
# MariaDB 11.4.5, and the distribution's MariaDB), interleaved per round:
# each build gets a 'bench' profile sandbox of its own (started with
# `server start --version`), TABLES x ROWS prepared once, then for each
# workload both tools run the same options, order alternating per round.
# Prints QPS and client CPU per query (the process's user+sys from
# /usr/bin/time, monitor on, defaults), then per build and workload the
# medians and the ratios qpslab/sysbench.
#
# Usage: bench/engines_vs_sysbench.sh
#   env: BUILDS="mysql-5.5.9 mariadb-11.4.5 system" THREADS=4 TIME=10
#        ROUNDS=3 TABLES=2 ROWS=100000 WORKLOADS="oltp_read_write oltp_point_select"
# Results go to stdout and bench/results/engines-<date>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILDS=${BUILDS:-"mysql-5.5.9 mariadb-11.4.5 system"}
THREADS=${THREADS:-4}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-2}
ROWS=${ROWS:-100000}
WORKLOADS=${WORKLOADS:-"oltp_read_write oltp_point_select"}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
source bench/measure.sh
mkdir -p bench/results
OUT=bench/results/engines-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# $($Q --version), $(sysbench --version); $TABLES x $ROWS rows, $THREADS threads, $TIME s, $ROUNDS rounds"
declare -A SOCK
for b in $BUILDS; do
  name=bench-${b//./-}
  if [ "$b" = system ]; then ver=(); else ver=(--version "$b"); fi
  "$Q" server start --name "$name" --preset bench --set innodb_log_file_size=256M "${ver[@]}" >/dev/null
  SOCK[$b]=$("$Q" server status --name "$name" | awk '{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
  "$Q" prepare oltp_read_write --server "$name" --tables "$TABLES" --table-size "$ROWS" >/dev/null 2>&1 ||
    { "$Q" cleanup oltp_read_write --server "$name" --tables "$TABLES" >/dev/null; "$Q" prepare oltp_read_write --server "$name" --tables "$TABLES" --table-size "$ROWS" >/dev/null; }
  echo "# $b: $(mariadb -uroot --socket="${SOCK[$b]}" -N -e 'SELECT VERSION()')"
done
printf "%-15s %-18s %5s | %9s %8s | %9s %8s\n" build workload round sb_qps sb_us q_qps q_us
declare -A R
for r in $(seq 1 "$ROUNDS"); do
  for b in $BUILDS; do
    for w in $WORKLOADS; do
      order=(sb q); [ $((r % 2)) = 0 ] && order=(q sb)
      for tool in "${order[@]}"; do
        case $tool in
          sb) R[$b,$w,$r,sb]=$(one sb sysbench --mysql-socket="${SOCK[$b]}" --mysql-user=root --mysql-db=sbtest \
                --tables="$TABLES" --table-size="$ROWS" --threads="$THREADS" --time="$TIME" --report-interval=0 "$w" run) ;;
          q) R[$b,$w,$r,q]=$(one q "$Q" run "$w" --server "bench-${b//./-}" --tables "$TABLES" --table-size "$ROWS" \
                --threads "$THREADS" --time "$TIME" --report-interval 0 --no-store) ;;
        esac
      done
      read -r sq su _ <<< "${R[$b,$w,$r,sb]}"; read -r qq qu _ <<< "${R[$b,$w,$r,q]}"
      printf "%-15s %-18s %5s | %9s %8s | %9s %8s\n" "$b" "$w" "$r" "$sq" "$su" "$qq" "$qu"
    done
  done
done
echo
printf "%-15s %-18s | %9s %8s | %9s %8s | %8s %8s\n" build workload sb_qps sb_us q_qps q_us qps_x us_x
med() { sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for b in $BUILDS; do
  for w in $WORKLOADS; do
    col() { for r in $(seq 1 "$ROUNDS"); do echo "${R[$b,$w,$r,$1]}" | awk -v c="$2" '{print $c}'; done | grep -v '^-$' | med; }
    sq=$(col sb 1); su=$(col sb 2); qq=$(col q 1); qu=$(col q 2)
    printf "%-15s %-18s | %9s %8s | %9s %8s | %8.3f %8.3f\n" "$b" "$w" "$sq" "$su" "$qq" "$qu" \
      "$(echo "$qq / $sq" | bc -l)" "$(echo "$qu / $su" | bc -l)"
  done
done
