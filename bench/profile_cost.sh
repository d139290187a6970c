#!/usr/bin/env bash
# What profiling the server costs the load: oltp_point_select at THREADS
# with and without `--profile KIND` (at HZ for cpu) on the same run,
# interleaved (the order alternates each round); QPS of each, the paired
# ratios and the median loss over ROUNDS.
#
# Usage: bench/profile_cost.sh
#   env: THREADS=16 TIME=10 ROUNDS=5 KIND=cpu HZ=99 TABLES=4 ROWS=100000
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-16}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-5}
KIND=${KIND:-cpu}
HZ=${HZ:-99}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
WORKLOAD=oltp_point_select
source bench/lib.sh
mkdir -p bench/results
OUT=bench/results/profile-cost-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# $($Q --version); $WORKLOAD, $THREADS threads, $TIME s, profile $KIND at $HZ Hz, $ROUNDS rounds"
qps() { "$Q" run "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" --threads "$THREADS" \
          --time "$TIME" --report-interval 0 --no-store "$@" | awk '/queries:/ && /per sec/{gsub(/\(/,"",$3); print $3}'; }
off=(); on=()
for r in $(seq 1 "$ROUNDS"); do
  for mode in $([ $((r % 2)) -eq 1 ] && echo "off on" || echo "on off"); do
    if [ "$mode" = off ]; then
      q=$(qps); off+=("$q")
    else
      q=$(qps --profile "$KIND" --profile-hz "$HZ"); on+=("$q")
    fi
    echo "round $r $mode: $q qps"
  done
  awk -v a="${off[-1]}" -v b="${on[-1]}" -v r="$r" 'BEGIN{printf "round %d ratio with/without %.3f\n", r, b/a}'
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
a=$(med "${off[@]}"); b=$(med "${on[@]}")
awk -v a="$a" -v b="$b" 'BEGIN{printf "median qps without %.0f, with the profile %.0f: %.2f%% lost\n", a, b, 100*(a-b)/a}'
