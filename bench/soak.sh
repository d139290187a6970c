#!/usr/bin/env bash
# Soak: one long monitored run, with everything else a lab does around it,
# and the run's own footprint sampled the whole time.
#
# A point_select run at THREADS users for MINUTES minutes, the monitor at
# 1 s (the default), on the 'soak' sandbox, while:
#   - `qpslab profile --kind syscalls` profiles the server every PROFILE_EVERY s;
#   - `qpslab ui` serves the store and a poller reads the index and the
#     running run's page every 5 s (what an open browser tab does);
#   - the sandbox is restarted RESTARTS times, evenly spaced, or at the
#     seconds RESTART_AT lists (the run
#     reconnects and ends degraded, never failed).
# Every SAMPLE seconds the run's RSS and its anonymous part (kB: the heap
# and stacks, without the binary's pages read in as new code runs), open
# descriptors, threads and the store's size (with its WAL) go to
# target/soak/samples.csv, charted in target/soak/rss.svg. At the end, the
# RSS slope after WARMUP seconds (least squares, MB per 10 minutes) and
# RSS's range after WARMUP are printed; with CHECK=1 the script fails when
# the slope is MAX_SLOPE MB per 10 minutes or more, or when the run failed
# (CI runs MINUTES=10 CHECK=1).
#
# Usage: bench/soak.sh   env: MINUTES=120 THREADS=32 RESTARTS=2
#        PROFILE_EVERY=600 SAMPLE=60 WARMUP=300 MAX_SLOPE=1 CHECK=0
#        RESTART_AT="s1 s2…" (default: evenly spaced)
#        RATE=N: at most N events a second over all users (default 0: as
#        fast as the server answers; CI caps it so the compiling beside
#        it keeps the CPUs)
#        Q=path/to/qpslab (default: target/release/qpslab, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-120}; THREADS=${THREADS:-32}; RESTARTS=${RESTARTS:-2}
PROFILE_EVERY=${PROFILE_EVERY:-600}; SAMPLE=${SAMPLE:-60}; WARMUP=${WARMUP:-300}
MAX_SLOPE=${MAX_SLOPE:-1}; CHECK=${CHECK:-0}; UI_PORT=${UI_PORT:-18787}
TABLES=${TABLES:-4}; ROWS=${ROWS:-10000}; RATE=${RATE:-0}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/soak-home}
OUT=$PWD/target/soak; mkdir -p "$OUT"
Q=${Q:-$PWD/target/release/qpslab}
[ -x "$Q" ] || cargo build --release
STORE=$OUT/soak.db; rm -f "$STORE" "$STORE"-wal "$STORE"-shm
SECS=$((MINUTES * 60))
# When each restart is due, in seconds.
if [ -n "${RESTART_AT:-}" ]; then
  read -r -a due <<<"$RESTART_AT"; RESTARTS=${#due[@]}
else
  due=(); for ((i = 1; i <= RESTARTS; i++)); do due+=($((i * SECS / (RESTARTS + 1)))); done
fi
# A command that ends the script says which one and where: CI shows this
# log and nothing else of the soak.
trap 'echo "soak: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$Q" server stop --name soak >/dev/null 2>&1 || true
}
trap cleanup EXIT

"$Q" server start --name soak >/dev/null
"$Q" cleanup oltp_point_select --server soak --create --tables "$TABLES" >/dev/null 2>&1 || true
"$Q" prepare oltp_point_select --server soak --create --tables "$TABLES" --table-size "$ROWS" >/dev/null
echo "# soak: $THREADS users, $MINUTES min, rate $RATE/s (0: unbounded), monitor 1 s, profile every ${PROFILE_EVERY}s, $RESTARTS restarts; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$Q" run oltp_point_select --server soak --create --tables "$TABLES" --table-size "$ROWS" \
  --threads "$THREADS" --time "$SECS" --store "$STORE" --report-interval 10 \
  --max-unreachable 60 --rate "$RATE" >"$OUT/run.log" 2>&1 &
RUN=$!; pids+=("$RUN")
"$Q" ui --store "$STORE" --port "$UI_PORT" >"$OUT/ui.log" 2>&1 &
pids+=("$!")
# The poller: what an open page does (bounded by the run's length).
( end=$((SECONDS + SECS + 30))
  while [ $SECONDS -lt $end ] && kill -0 "$RUN" 2>/dev/null; do
    curl -s -o /dev/null "http://127.0.0.1:$UI_PORT/" || true
    curl -s -o /dev/null "http://127.0.0.1:$UI_PORT/run/1" || true
    sleep 5
  done ) &
pids+=("$!")

echo "t_s,rss_kb,fds,threads,store_kb,anon_kb" >"$OUT/samples.csv"
start=$SECONDS; next_profile=$PROFILE_EVERY; restarts_done=0
while kill -0 "$RUN" 2>/dev/null; do
  t=$((SECONDS - start))
  rss=$(awk '/^VmRSS/{print $2}' "/proc/$RUN/status" 2>/dev/null || echo 0)
  # Each reading may find nothing (the run gone between the check and the
  # read, the store not yet created by a run still starting): it reads 0,
  # never ends the script (pipefail made a missing store a silent exit 1
  # in CI when the run was slower to create it than this loop's first
  # sample).
  fds=$( { ls "/proc/$RUN/fd" 2>/dev/null || true; } | wc -l)
  thr=$(awk '/^Threads/{print $2}' "/proc/$RUN/status" 2>/dev/null || echo 0)
  st=$( { du -k -c "$STORE"* 2>/dev/null || true; } | tail -1 | cut -f1)
  anon=$(awk '/^Anonymous/{print $2}' "/proc/$RUN/smaps_rollup" 2>/dev/null || echo 0)
  [ -n "$rss" ] && echo "$t,$rss,$fds,$thr,${st:-0},${anon:-0}" >>"$OUT/samples.csv"
  if [ "$t" -ge "$next_profile" ] && [ "$t" -lt $((SECS - 60)) ]; then
    "$Q" profile --server soak --create --kind syscalls --time 10 >"$OUT/profile-$t.log" 2>&1 || echo "profile at ${t}s failed (see $OUT/profile-$t.log)"
    next_profile=$((next_profile + PROFILE_EVERY))
  fi
  if [ "$restarts_done" -lt "$RESTARTS" ] && [ "$t" -ge "${due[$restarts_done]}" ]; then
    "$Q" server stop --name soak >/dev/null || echo "soak: stopping the sandbox at ${t}s failed (above)"
    "$Q" server start --name soak >/dev/null || { echo "soak: starting the sandbox again at ${t}s failed (above)"; exit 1; }
    restarts_done=$((restarts_done + 1)); echo "restart $restarts_done at ${t}s"
  fi
  sleep "$SAMPLE"
done
rc=0; wait "$RUN" || rc=$?
echo "run exit code: $rc (3 = degraded, as restarts make it)"
tail -25 "$OUT/run.log" | grep -E "queries:|DEGRADED|FAILED|reconnects" || true

# The slope of RSS after the warm-up, in MB per 10 minutes; the chart.
awk -F, -v w="$WARMUP" -v max="$MAX_SLOPE" -v out="$OUT/rss.svg" '
  NR > 1 { t[NR] = $1; r[NR] = $2 / 1024; n = NR
           if ($1 >= w) { k++; sx += $1; sy += $2 / 1024; sxx += $1 * $1; sxy += $1 * $2 / 1024
                          if (k == 1 || $2 < wlo) wlo = $2; if ($2 > whi) whi = $2
                          if (k == 1 || $6 < alo) alo = $6; if ($6 > ahi) ahi = $6 } }
  END {
    slope = (k > 1) ? (k * sxy - sx * sy) / (k * sxx - sx * sx) * 600 : 0
    printf "RSS slope after %d s: %.3f MB per 10 minutes over %d samples (limit %s)\n", w, slope, k, max
    printf "RSS after %d s: %.1f to %.1f MB (range %.1f MB); anonymous %.1f to %.1f MB (range %.1f MB)\n", w, wlo / 1024, whi / 1024, (whi - wlo) / 1024, alo / 1024, ahi / 1024, (ahi - alo) / 1024
    lo = 1e18; hi = 0; T = 1
    for (i = 2; i <= n; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i]; if (t[i] > T) T = t[i] }
    if (hi <= lo) hi = lo + 1
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"320\"><rect width=\"640\" height=\"320\" fill=\"white\"/>" > out
    printf "<text x=\"10\" y=\"20\" font-size=\"14\">qpslab run RSS (MB), %.1f to %.1f, over %d s</text><polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" points=\"", lo, hi, T > out
    for (i = 2; i <= n; i++) printf "%.1f,%.1f ", 20 + 600 * t[i] / T, 300 - 260 * (r[i] - lo) / (hi - lo) > out
    printf "\"/></svg>\n" > out
    print (slope < max) ? "flat" : "GROWING" > "/dev/stderr"
    exit (slope < max) ? 0 : 1
  }' "$OUT/samples.csv" && flat=1 || flat=0
echo "samples: $OUT/samples.csv, chart: $OUT/rss.svg; store size at the end: $(tail -1 "$OUT/samples.csv" | cut -d, -f5) kB"
if [ "$CHECK" = 1 ]; then
  [ "$flat" = 1 ] || { echo "soak: memory grows (above)"; exit 1; }
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "soak: the run failed (exit $rc); see $OUT/run.log"; exit 1; }
  echo "soak: memory flat, run exit $rc"
fi
