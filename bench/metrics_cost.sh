#!/usr/bin/env bash
# What the Prometheus exposition and remote write cost the load (issue 35):
# interleaved runs, monitor on in both, A with --metrics-listen scraped
# every second by a real Prometheus and --remote-write into the same
# Prometheus every second, B without either; same workload and threads,
# rounds in A-B / B-A order. Prints each round's QPS and load CPU µs per
# query, the median ratios, then how long a scrape of /metrics takes
# during a run of SCRAPE_THREADS connections (the issue's goal: < 50 ms
# at 1,024).
#
# Usage: bench/metrics_cost.sh
#   env: THREADS=16 TIME=10 ROUNDS=5 WORKLOAD=oltp_point_select SCRAPE_THREADS=1024
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-16}; TIME=${TIME:-10}; ROUNDS=${ROUNDS:-5}
WORKLOAD=${WORKLOAD:-oltp_point_select}; TABLES=${TABLES:-4}; ROWS=${ROWS:-100000}
SCRAPE_THREADS=${SCRAPE_THREADS:-1024}
command -v prometheus >/dev/null || { echo "bench/metrics_cost.sh: needs Debian's prometheus (apt-get install prometheus)" >&2; exit 1; }
. bench/lib.sh
mkdir -p bench/results
OUT=bench/results/metrics-cost-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
echo "# $(date -u +%FT%TZ) host load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
P=$(mktemp -d)
MPORT=19471; PPORT=19472
cat > "$P/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: qpslab
    static_configs: [{targets: ['127.0.0.1:$MPORT']}]
YML
prometheus --config.file="$P/prometheus.yml" --storage.tsdb.path="$P/data" \
  --web.listen-address=127.0.0.1:$PPORT --web.enable-remote-write-receiver >"$P/log" 2>&1 &
PROM=$!
trap 'kill $PROM 2>/dev/null; wait $PROM 2>/dev/null; rm -rf "$P"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null && break; sleep 0.2; done
run() { "$Q" run "$WORKLOAD" --server bench --tables "$TABLES" --table-size "$ROWS" --threads "$THREADS" --time "$TIME" \
          --no-store --format json "$@"; }
fig() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totals"]["qps"], d["client"]["load_cpu_seconds"]*1e6/max(d["totals"]["queries"],1))'; }
on() { run --metrics-listen "127.0.0.1:$MPORT" --metrics-linger 5 --remote-write "http://127.0.0.1:$PPORT/api/v1/write" | fig; }
off() { run | fig; }
echo "# $WORKLOAD, $THREADS threads, $TIME s, monitor on; A: --metrics-listen (scraped at 1 s) + --remote-write at 1 s, B: neither; $ROUNDS rounds"
printf "%5s %12s %12s %8s %10s %10s %8s\n" round qps_A qps_B ratio cpu_us_A cpu_us_B ratio
qr=(); cr=()
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then a=$(on); b=$(off); else b=$(off); a=$(on); fi
  read -r qa ca <<<"$a"; read -r qb cb <<<"$b"
  q=$(echo "$qa / $qb" | bc -l); c=$(echo "$ca / $cb" | bc -l); qr+=("$q"); cr+=("$c")
  printf "%5s %12.0f %12.0f %8.4f %10.2f %10.2f %8.4f\n" "$r" "$qa" "$qb" "$q" "$ca" "$cb" "$c"
done
med() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "median QPS ratio (A/B): %.4f   median load CPU per query ratio (A/B): %.4f\n" "$(med "${qr[@]}")" "$(med "${cr[@]}")"
echo "# scrape time of /metrics during a $SCRAPE_THREADS-connection run (curl, 10 scrapes 1 s apart)"
"$Q" run "$WORKLOAD" --server bench --tables "$TABLES" --table-size "$ROWS" --threads "$SCRAPE_THREADS" --time 20 \
  --no-store --metrics-listen "127.0.0.1:$((MPORT + 2))" --metrics-linger 0 >/dev/null 2>&1 &
RUN=$!
sleep 6
times=()
for _ in $(seq 1 10); do
  t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$((MPORT + 2))/metrics" || echo nan)
  times+=("$t"); sleep 1
done
wait $RUN || true
printf "scrape seconds: %s\n" "${times[*]}"
printf "median %.4f s, max %.4f s\n" "$(med "${times[@]}")" "$(printf "%s\n" "${times[@]}" | sort -g | tail -1)"
