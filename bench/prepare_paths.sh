#!/usr/bin/env bash
# Where prepare's time goes, and what the server's bulk-load paths give.
#
# 1. The server's floor for one table: the `mariadb` client's LOAD DATA
#    LOCAL of a ready CSV file (no row generation in any client), with
#    unique/foreign key checks on and off, rows in primary-key order and
#    shuffled, and multi-row INSERTs of the same rows for comparison.
# 2. Several tables at once: the same file into 1, 2 and 4 tables by as
#    many concurrent clients (rows/s in all).
# 3. The tools: sysbench prepare --threads=2 and --threads=TABLES, qpslab
#    prepare with 2 loaders (--threads 2) and its default, TABLES x ROWS each.
#
# Usage: bench/prepare_paths.sh   env: TABLES=8 ROWS=1000000 FLOOR_ROWS=ROWS TOOLS_ONLY=0
set -euo pipefail
cd "$(dirname "$0")/.."
TABLES=${TABLES:-8}; ROWS=${ROWS:-1000000}; FLOOR_ROWS=${FLOOR_ROWS:-$ROWS}
WORKLOAD=oltp_point_select
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
"$Q" server start --name bench --preset bench >/dev/null
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
M=(mariadb -uroot --socket="$SOCK" --local-infile=1)
"${M[@]}" -e "CREATE DATABASE IF NOT EXISTS floor; SET GLOBAL local_infile=1"
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $("${M[@]}" -N -e 'SELECT VERSION()'), profile bench"
echo "# buffer pool $("${M[@]}" -N -e 'SELECT @@innodb_buffer_pool_size/1048576') MB, redo $("${M[@]}" -N -e 'SELECT @@innodb_log_file_size/1048576') MB, flush_log_at_trx_commit $("${M[@]}" -N -e 'SELECT @@innodb_flush_log_at_trx_commit')"
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
rate() { printf "%-52s %7.2f s  %9.0f rows/s\n" "$1" "$2" "$(echo "$3 / $2" | bc -l)"; }
if [ "${TOOLS_ONLY:-0}" != 1 ]; then
T=$(mktemp -d)
python3 - "$FLOOR_ROWS" "$T" <<'PY'
import random, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(1)
def groups(k): return "-".join("".join(r.choice("0123456789") for _ in range(11)) for _ in range(k))
rows = [f"{i},{r.randint(1, n)},{groups(10)},{groups(5)}\n" for i in range(1, n + 1)]
open(f"{d}/sorted.csv", "w").writelines(rows)
r.shuffle(rows)
open(f"{d}/shuffled.csv", "w").writelines(rows)
with open(f"{d}/insert.sql", "w") as f:
    f.write("SET unique_checks=0, foreign_key_checks=0;\n")
    srt = sorted(rows, key=lambda l: int(l.split(",", 1)[0]))
    for i in range(0, n, 1000):
        vals = ",".join("({},{},'{}','{}')".format(*l.rstrip().split(",")) for l in srt[i:i + 1000])
        f.write(f"INSERT INTO t1 (id,k,c,pad) VALUES {vals};\n")
PY
table() { "${M[@]}" floor -e "DROP TABLE IF EXISTS $1; CREATE TABLE $1(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB"; }
load() { # table file checks(0|1)
  "${M[@]}" floor -e "SET unique_checks=$3, foreign_key_checks=$3; LOAD DATA LOCAL INFILE '$2' INTO TABLE $1 FIELDS TERMINATED BY ',' (id,k,c,pad)"; }
echo; echo "== 1. the server's floor, one table of $FLOOR_ROWS rows (the mariadb client, a ready file)"
for how in "LOAD DATA, checks on, PK order:sorted:1" "LOAD DATA, unique/FK checks off, PK order:sorted:0" \
           "LOAD DATA, checks off, shuffled PK:shuffled:0"; do
  IFS=: read -r label f c <<< "$how"
  table t1; rate "$label" "$(secs load t1 "$T/$f.csv" "$c")" "$FLOOR_ROWS"
done
table t1; rate "INSERT 1000 rows a statement, checks off, PK order" "$(secs sh -c "${M[*]} floor < $T/insert.sql")" "$FLOOR_ROWS"
table t1; s=$(secs load t1 "$T/sorted.csv" 0)
rate "  then CREATE INDEX k (secondary, after the load)" "$(secs "${M[@]}" floor -e 'CREATE INDEX k_1 ON t1(k)')" "$FLOOR_ROWS"
echo; echo "== 2. several tables at once (LOAD DATA, checks off, PK order)"
for n in 1 2 4; do
  for i in $(seq 1 "$n"); do table "t$i"; done
  t0=$(date +%s.%N)
  for i in $(seq 1 "$n"); do load "t$i" "$T/sorted.csv" 0 & done; wait
  t1=$(date +%s.%N)
  rate "$n table(s) by $n client(s)" "$(echo "$t1 - $t0" | bc)" "$((n * FLOOR_ROWS))"
done
"${M[@]}" -e "DROP DATABASE floor"
rm -rf "$T"
fi
echo; echo "== 3. the tools: $TABLES x $ROWS rows (secondary index included)"
SB=(sysbench --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
clean() { "$Q" cleanup "$WORKLOAD" --server bench --create --tables "$TABLES" >/dev/null; }
for th in 2 "$TABLES"; do clean; rate "sysbench prepare --threads=$th" "$(secs "${SB[@]}" --threads="$th" oltp_read_write prepare)" "$((TABLES * ROWS))"; done
for l in 2 default; do
  clean
  if [ "$l" = default ]; then a=(); else a=(--threads "$l"); fi
  rate "qpslab prepare --threads $l" "$(secs "$Q" prepare "$WORKLOAD" --server bench --create --tables "$TABLES" --table-size "$ROWS" "${a[@]}")" "$((TABLES * ROWS))"
done
