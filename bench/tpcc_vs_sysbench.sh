#!/usr/bin/env bash
# TPC-C: qpslab against Percona's sysbench-tpcc under sysbench, on the same
# sandbox MariaDB ('bench' profile), interleaved (the order rotates each
# round).
#
# Load: `prepare` of WAREHOUSES warehouses with THREADS loaders by each tool
# (sysbench-tpcc: --scale/--threads; qpslab: --warehouses/--threads), and
# qpslab with its default loaders (4 per CPU). Wall seconds, rows/s and
# seconds per warehouse, and the server's floor: the same rows qpslab
# generated, dumped with SELECT … INTO OUTFILE and loaded back with a plain
# server-side LOAD DATA INFILE per table (nine in parallel), secondary
# indexes built after, as qpslab does.
#
# Run (when sysbench-tpcc's tpcc_run.lua is there): each tool on its own
# tables, THREADS connections, TIME seconds, defaults (qpslab's monitor
# on); client CPU per transaction and per query from /usr/bin/time
# (user+sys of the whole process) and transactions per second.
# sysbench-tpcc's Stock-Level issues one query per item (its "case2"), so
# it runs more queries per transaction: both ratios are printed.
#
# sysbench-tpcc's Stock-Level, as shipped, reads its first result set after
# issuing the next query, which sysbench 1.0.20 has freed: the event fails
# and is retried forever. The script runs a copy of the checkout with that
# loop changed to read the ids first (the only change).
#
# sysbench-tpcc is not part of qpslab (GPL-2, Percona-Lab/sysbench-tpcc):
# point SYSBENCH_TPCC_DIR at a checkout holding tpcc_common.lua (and
# tpcc_run.lua for the run part). Its prepare runs through a two-line
# driver, tpcc_load.lua, made here (its tpcc.lua also needs tpcc_check).
#
# Usage: SYSBENCH_TPCC_DIR=/path bench/tpcc_vs_sysbench.sh
#   env: WAREHOUSES=2 THREADS=2 (loaders) RUN_THREADS="2 16 64" ROUNDS=3 TIME=20
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SYSBENCH_TPCC_DIR:?set SYSBENCH_TPCC_DIR to a sysbench-tpcc checkout (tpcc_common.lua)}"
[ -f "$SYSBENCH_TPCC_DIR/tpcc_common.lua" ] || { echo "no tpcc_common.lua in $SYSBENCH_TPCC_DIR" >&2; exit 1; }
WAREHOUSES=${WAREHOUSES:-2}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
TIME=${TIME:-20}
RUN_THREADS=${RUN_THREADS:-"2 16 64"}
export QPSLAB_HOME=${QPSLAB_HOME:-$PWD/target/bench-home}
Q=$PWD/target/release/qpslab
[ -x "$Q" ] || cargo build --release
"$Q" server start --name bench --preset bench >/dev/null
SOCK=$("$Q" server status --name bench | awk '/socket/{for(i=1;i<=NF;i++) if($i=="socket") print $(i+1)}')
SQL() { mariadb -uroot --socket="$SOCK" -N -e "$1"; }
mkdir -p bench/results
OUT=bench/results/tpcc-$(date +%Y%m%d-%H%M%S).txt
exec > >(tee "$OUT") 2>&1
DRV=$(mktemp -d)
printf 'require("tpcc_common")\nfunction event() end\n' > "$DRV/tpcc_load.lua"
cp "$SYSBENCH_TPCC_DIR"/*.lua "$DRV/"
[ -f "$DRV/tpcc_run.lua" ] && python3 - "$DRV/tpcc_run.lua" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
loop = re.compile(r"(\n\s*)for i = 1, rs\.nrows do\n\s*ol_i_id = unpack\(rs:fetch_row\(\), 1, rs\.nfields\)\n")
s, n = loop.subn(r"\1local ids = {}\1for i = 1, rs.nrows do ids[i] = unpack(rs:fetch_row(), 1, rs.nfields) end"
                 r"\1for i = 1, #ids do\1    ol_i_id = ids[i]\n", s)
open(p, "w").write(s)
print("# sysbench-tpcc Stock-Level patched to read its ids first" if n else "# sysbench-tpcc Stock-Level left as it is")
PY
SYSBENCH_TPCC_DIR=$DRV
export LUA_PATH="$DRV/?.lua;;"
DUMP=/tmp/qpslab-tpcc-floor
trap 'rm -rf "$DRV" "$DUMP"' EXIT

echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run"
echo "# $($Q --version), $(sysbench --version), server $(SQL 'SELECT VERSION()')"
echo "# $WAREHOUSES warehouses, $THREADS threads, $ROUNDS rounds"

fresh() { SQL "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"; }
rows() { # all rows of database $1
  SQL "SELECT table_name FROM information_schema.tables WHERE table_schema='$1' AND table_name NOT LIKE 'qpslab%'" |
    while read -r t; do SQL "SELECT COUNT(*) FROM $1.$t"; done | awk '{s+=$1} END {print s}'
}
timed() { # cmd... -> wall seconds (the command's output to stderr on failure)
  local t; t=$(mktemp)
  /usr/bin/time -f "%e %U %S" -o "$t.time" "$@" > "$t" 2>&1 || { tail -n 5 "$t" >&2; echo "-"; rm -f "$t" "$t.time"; return; }
  awk '{print $1}' "$t.time"; rm -f "$t" "$t.time"
}
floor() { # LOAD DATA INFILE of database qt's rows into fl, per table in parallel
  rm -rf "$DUMP"; mkdir -p "$DUMP"; chmod 777 "$DUMP"; fresh fl
  local tables; tables=$(SQL "SELECT table_name FROM information_schema.tables WHERE table_schema='qt' AND table_name NOT LIKE 'qpslab%'")
  for t in $tables; do
    SQL "SELECT * INTO OUTFILE '$DUMP/$t.txt' FROM qt.$t; CREATE TABLE fl.$t LIKE qt.$t"
    for i in $(SQL "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema='fl' AND table_name='$t' AND index_name <> 'PRIMARY'"); do
      SQL "ALTER TABLE fl.$t DROP INDEX $i"
    done
  done
  # 50,000-row pieces, eight LOAD DATA at a time (as parallel as qpslab's loaders)
  for t in $tables; do (cd "$DUMP" && split -l 50000 -d -a 3 "$t.txt" "$t.part." && rm "$t.txt"); done
  chmod 644 "$DUMP"/*
  local start; start=$(date +%s.%N)
  export SOCK DUMP
  ls "$DUMP" | xargs -P 8 -n 1 bash -c 'mariadb -uroot --socket="$SOCK" -e "SET unique_checks=0; LOAD DATA INFILE '"'"'$DUMP/$0'"'"' INTO TABLE fl.${0%%.part.*}"'
  SQL "CREATE INDEX idx_customer1 ON fl.customer1 (c_w_id, c_d_id, c_last, c_first); CREATE INDEX idx_orders1 ON fl.orders1 (o_w_id, o_d_id, o_c_id, o_id)"
  echo "$(date +%s.%N) $start" | awk '{printf "%.2f\n", $1-$2}'
}

echo
echo "## load ($WAREHOUSES warehouses)"
printf "%5s | %8s %9s | %8s %9s | %8s %9s | %8s %9s\n" round sb_s sb_rows/s q_s q_rows/s q8_s q8_rows/s floor_s fl_rows/s
declare -A SUM=()
for r in $(seq 1 "$ROUNDS"); do
  order=(sb q qd)
  for k in $(seq 1 $(( (r - 1) % 3 ))); do order=("${order[@]:1}" "${order[0]}"); done
  declare -A s=() n=()
  for tool in "${order[@]}"; do
    case $tool in
      sb) fresh sbt; s[sb]=$(cd "$DRV" && timed sysbench tpcc_load.lua --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbt --scale="$WAREHOUSES" --threads="$THREADS" prepare); n[sb]=$(rows sbt) ;;
      q) fresh qt; s[q]=$(timed "$Q" prepare tpcc --server bench --create --db qt --warehouses "$WAREHOUSES" --threads "$THREADS"); n[q]=$(rows qt) ;;
      qd) fresh qd; s[qd]=$(timed "$Q" prepare tpcc --server bench --create --db qd --warehouses "$WAREHOUSES"); n[qd]=$(rows qd) ;;
    esac
  done
  s[fl]=$(floor); n[fl]=${n[q]}
  line="$(printf "%5s" "$r")"
  for k in sb q qd fl; do
    line+=" | $(awk -v s="${s[$k]}" -v n="${n[$k]}" 'BEGIN{ if (s=="-") printf "%8s %9s", "-", "-"; else printf "%8.2f %9.0f", s, n/s }')"
    SUM[$k]+="${s[$k]} "
  done
  echo "$line"
done
med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
sb=$(med "${SUM[sb]}"); q=$(med "${SUM[q]}"); qd=$(med "${SUM[qd]}"); fl=$(med "${SUM[fl]}")
echo "median s: sysbench-tpcc $sb, qpslab ($THREADS loaders) $q, qpslab (default loaders) $qd, floor $fl"
awk -v sb="$sb" -v q="$q" -v qd="$qd" -v fl="$fl" -v w="$WAREHOUSES" 'BEGIN{
  printf "loading rate qpslab/sysbench-tpcc: %.2fx (same loaders), %.2fx (default loaders)\n", sb/q, sb/qd;
  printf "s per warehouse: sysbench-tpcc %.2f, qpslab %.2f / %.2f, floor %.2f; qpslab at %.0f%% of the floor'"'"'s rate\n", sb/w, q/w, qd/w, fl/w, 100*fl/qd }'

[ -f "$SYSBENCH_TPCC_DIR/tpcc_run.lua" ] || { echo "(no tpcc_run.lua: run part skipped)"; exit 0; }
echo
cpu_per_tx() { # cmd... -> "tps us_per_tx us_per_query"
  local t; t=$(mktemp)
  /usr/bin/time -f "%U %S" -o "$t.time" "$@" > "$t" 2>&1 || true
  local n q; n=$(awk '/transactions:/{print $2; exit}' "$t"); q=$(awk '/queries:/ && /per sec/{print $2; exit}' "$t")
  if [ -z "$n" ]; then tail -n 5 "$t" >&2; echo "- - -"; else
    awk -v n="$n" -v q="$q" -v time="$TIME" '{printf "%.1f %.1f %.2f\n", n/time, ($1+$2)*1e6/n, ($1+$2)*1e6/q}' "$t.time"; fi
  rm -f "$t" "$t.time"
}
for th in $RUN_THREADS; do
echo
echo "## run ($th threads, $TIME s; each tool on its own tables)"
printf "%5s | %9s %9s %8s | %9s %9s %8s\n" round sb_tps sb_us/tx sb_us/q q_tps q_us/tx q_us/q
declare -A RS=() RQ=()
for r in $(seq 1 "$ROUNDS"); do
  order=(sb q); [ $((r % 2)) -eq 0 ] && order=(q sb)
  declare -A x=()
  for tool in "${order[@]}"; do
    case $tool in
      sb) x[sb]=$(cd "$SYSBENCH_TPCC_DIR" && cpu_per_tx sysbench tpcc.lua --mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbt --scale="$WAREHOUSES" --threads="$th" --time="$TIME" --report-interval=0 run) ;;
      q) x[q]=$(cpu_per_tx "$Q" run tpcc --server bench --create --db qt --warehouses "$WAREHOUSES" --threads "$th" --time "$TIME" --report-interval 0 --no-store) ;;
    esac
  done
  printf "%5s | %9s %9s %8s | %9s %9s %8s\n" "$r" ${x[sb]} ${x[q]}
  RS[sb]+="$(cut -d' ' -f2 <<<"${x[sb]}") "; RS[q]+="$(cut -d' ' -f2 <<<"${x[q]}") "
  RQ[sb]+="$(cut -d' ' -f3 <<<"${x[sb]}") "; RQ[q]+="$(cut -d' ' -f3 <<<"${x[q]}") "
done
sbu=$(med "${RS[sb]}"); qu=$(med "${RS[q]}"); sbq=$(med "${RQ[sb]}"); qq=$(med "${RQ[q]}")
awk -v a="$sbu" -v b="$qu" -v c="$sbq" -v d="$qq" 'BEGIN{
  printf "median client CPU per transaction: sysbench-tpcc %.1f us, qpslab %.1f us: qpslab/sysbench-tpcc %.2f\n", a, b, b/a;
  printf "median client CPU per query:       sysbench-tpcc %.2f us, qpslab %.2f us: qpslab/sysbench-tpcc %.2f\n", c, d, d/c }'
done
