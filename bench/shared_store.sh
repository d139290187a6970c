#!/usr/bin/env bash
# Issue 36's store goal: 8 writers on 2 hosts record into one MariaDB-backed
# store for DURATION seconds and the store loses nothing and duplicates
# nothing. The 2 hosts are 2 network namespaces (veth pairs to the host,
# 10.202.N.0/30), each with its own state directory (its own spool) and 4
# writers; each writer records short runs (oltp_point_select, 1 thread,
# --time RUN_TIME, against the same sandbox) into
# --store mysql://storew:…@10.202.N.1:PORT/shared_store_bench in a loop.
# Then: every run in every spool is on the server once (by uid), with the
# same number of samples; the server holds nothing else.
#
# Usage: bench/shared_store.sh [BIN]     (root: ip netns)
#   env: DURATION=60 RUN_TIME=1 WRITERS_PER_HOST=4
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/release/qpslab}")
DURATION=${DURATION:-60}
RUN_TIME=${RUN_TIME:-1}
PER_HOST=${WRITERS_PER_HOST:-4}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
SERVER=store
PW=storew-$$-pw
DB=shared_store_bench
WORK=$(mktemp -d /tmp/qpslab-shared-store.XXXXXX)
NS=(qss$$a qss$$b)
cleanup() {
  for ns in "${NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
"$BIN" server start --name "$SERVER" --set bind_address=0.0.0.0 --set max_connections=200 >/dev/null
SOCK="$QPSLAB_HOME/sandboxes/$SERVER/mysqld.sock"
PORT=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$QPSLAB_HOME/sandboxes/$SERVER/meta.json")
mariadb -uroot --socket="$SOCK" -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB; CREATE DATABASE IF NOT EXISTS sbtest;
  CREATE USER IF NOT EXISTS 'storew'@'%' IDENTIFIED BY '$PW'; ALTER USER 'storew'@'%' IDENTIFIED BY '$PW';
  GRANT ALL ON *.* TO 'storew'@'%'"
"$BIN" prepare oltp_point_select --server "$SERVER" --tables 1 --table-size 1000 >/dev/null 2>&1 || true
for i in 0 1; do
  ns=${NS[$i]} net=$((1 + i + ($$ % 60) * 2))
  h=qsh$$$i n=qsn$$$i
  ip netns add "$ns"
  ip link add "$h" type veth peer name "$n"
  ip link set "$n" netns "$ns"
  ip addr add "10.202.$net.1/30" dev "$h"
  ip link set "$h" up
  ip -n "$ns" addr add "10.202.$net.2/30" dev "$n"
  ip -n "$ns" link set "$n" up
  ip -n "$ns" link set lo up
  ip -n "$ns" route add default via "10.202.$net.1"
  echo "10.202.$net.1" > "$WORK/gw$i"
  mkdir -p "$WORK/home$i"
done
# One writer: runs in a loop until the deadline; counts the runs it
# recorded (exit 0) and the ones that failed.
writer() {
  local i=$1 w=$2 deadline=$3 gw ok=0 bad=0
  gw=$(cat "$WORK/gw$i")
  local url="mysql://storew:$PW@$gw:$PORT/$DB"
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if ip netns exec "${NS[$i]}" env QPSLAB_HOME="$WORK/home$i" "$BIN" run oltp_point_select \
        --mysql-host "$gw" --mysql-port "$PORT" --mysql-user storew --mysql-password "$PW" --mysql-db sbtest \
        --tables 1 --table-size 1000 --threads 1 --time "$RUN_TIME" --no-monitor --store "$url" \
        >/dev/null 2>>"$WORK/log$i-$w"; then
      ok=$((ok + 1))
    else
      bad=$((bad + 1))
    fi
  done
  echo "$ok $bad" > "$WORK/count$i-$w"
}
deadline=$(( $(date +%s) + DURATION ))
pids=()
for i in 0 1; do
  for w in $(seq 1 "$PER_HOST"); do writer "$i" "$w" "$deadline" & pids+=("$!"); done
done
for p in "${pids[@]}"; do wait "$p"; done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) after the writers"
mariadb -uroot --socket="$SOCK" -N -B -D "$DB" -e \
  "SELECT r.uid, r.status, (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) FROM runs r" > "$WORK/server.tsv"
python3 - "$WORK" "$PER_HOST" <<'PY'
import collections, glob, os, sqlite3, sys
work, per_host = sys.argv[1], int(sys.argv[2])
server = collections.Counter()
server_samples = {}
for line in open(os.path.join(work, "server.tsv")):
    uid, status, samples = line.rstrip("\n").split("\t")
    server[uid] += 1
    server_samples[uid] = int(samples)
recorded = failed = 0
for f in glob.glob(os.path.join(work, "count*")):
    ok, bad = map(int, open(f).read().split())
    recorded, failed = recorded + ok, failed + bad
spool = {}
for i in (0, 1):
    for path in glob.glob(os.path.join(work, f"home{i}", "server-stores", "*", "spool.db")):
        c = sqlite3.connect(path)
        for uid, status, n in c.execute(
            "SELECT uid, status, (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) FROM runs r"
        ):
            spool[uid] = (status, n)
lost = [u for u in spool if u not in server]
dup = [u for u, n in server.items() if n > 1]
extra = [u for u in server if u not in spool]
diff_samples = [u for u in spool if u in server_samples and server_samples[u] != spool[u][1]]
print(f"writers: 2 hosts x {per_host}; runs recorded (exit 0): {recorded}, failed: {failed}")
print(f"spools: {len(spool)} runs, {sum(n for _, n in spool.values())} samples; "
      f"server: {sum(server.values())} runs ({len(server)} distinct), {sum(server_samples.values())} samples")
print(f"lost: {len(lost)}, duplicated: {len(dup)}, on the server only: {len(extra)}, "
      f"sample counts differing: {len(diff_samples)}")
ok = not lost and not dup and not extra and not diff_samples and len(spool) >= recorded
print("goal: " + ("reached" if ok else "NOT reached"))
sys.exit(0 if ok else 1)
PY
