#!/usr/bin/env bash
# How fast a long run's page loads: a run with as many samples and monitor
# snapshots as a 1-hour run at 1 s (3600 each, here every 0.05 s for 180 s,
# Performance Schema on so that every collector runs), then the UI's time
# to serve its page (curl, median of 5) and Chromium's time to load and
# draw it (playwright, median of 3).
#
# Usage: bench/ui_page_time.sh   env: SECONDS_RUN=180 STEP=0.05
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_S=${SECONDS_RUN:-180}; STEP=${STEP:-0.05}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
"$Q" server start --name uibench --set performance_schema=ON >/dev/null
"$Q" prepare oltp_read_write --server uibench --tables 4 --table-size 10000 >/dev/null
STORE=$(mktemp -d)/results.db
"$Q" run oltp_read_write --server uibench --tables 4 --table-size 10000 --threads 4 --time "$RUN_S" \
  --report-interval "$STEP" --monitor-interval "$STEP" --monitor-budget 50 --store "$STORE" --format json >/dev/null
RUN=$(sqlite3 "$STORE" "SELECT MAX(id) FROM runs")
echo "# run $RUN: $(sqlite3 "$STORE" "SELECT COUNT(*) FROM samples WHERE run_id=$RUN") samples, $(sqlite3 "$STORE" "SELECT COUNT(*) FROM metric_snaps WHERE run_id=$RUN") snapshots ($(sqlite3 "$STORE" "SELECT group_concat(source || ':' || n, ' ') FROM (SELECT source, COUNT(*) n FROM metric_snaps WHERE run_id=$RUN GROUP BY source)")); store $(du -h "$STORE" | cut -f1)"
PORT=8791
"$Q" ui --port $PORT --store "$STORE" >/dev/null & UI=$!
trap 'kill $UI 2>/dev/null || true' EXIT
sleep 1
for i in 1 2 3 4 5; do curl -s -o /dev/null -w "%{time_total} %{size_download}\n" "http://127.0.0.1:$PORT/run/$RUN"; done |
  sort -n | awk '{t[NR]=$1; s=$2} END {printf "server: median %.3f s for a %.0f KB page\n", t[3], s/1024}'
node -e '
const { chromium } = require(process.cwd() + "/tests/ui/node_modules/playwright-core");
(async () => {
  const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  const ts = [];
  for (let i = 0; i < 3; i++) {
    const p = await b.newPage();
    const t0 = Date.now();
    await p.goto(process.argv[1], { waitUntil: "load" });
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    ts.push((Date.now() - t0) / 1000);
    await p.close();
  }
  ts.sort();
  console.log(`browser: median ${ts[1].toFixed(3)} s to load and draw (runs: ${ts.join(", ")})`);
  await b.close();
})();
' "http://127.0.0.1:$PORT/run/$RUN"
