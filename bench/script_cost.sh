#!/usr/bin/env bash
# What a sysbench Lua script costs over the built-in workload of the same
# name, for two qpslab builds (issue 37 item 3): in each round, on the
# 'bench' sandbox, OLD's script run, NEW's script run and NEW's native run
# (the order rotates each round), each a whole process under
# /usr/bin/time (user+sys over the queries it made, connection set-up and
# script loading included; peak RSS), monitor on, no store. The ratio
# script / native is taken within each round, then its median.
#
# Usage: bench/script_cost.sh OLD_BIN [NEW_BIN]   (NEW: target/release/qpslab)
#   env: THREADS="16 1024" TIME=8 ROUNDS=3 TABLES=4 ROWS=100000
#        WORKLOADS="oltp_point_select oltp_read_write"
#   IR=1: instead, instructions per query (valgrind's cachegrind, one
#   connection, the difference of an E1-event and an E2-event run over the
#   difference of their queries: start-up left out; the same draws
#   (--rand-seed 7) and no interval ticks (--report-interval 3600), as
#   bench/ir_per_query.sh runs them: deterministic on a busy host).
#   env: E1=2000 E2=6000
#   SETUP=1: instead, instructions a connection spends being set up
#   (valgrind's cachegrind: the difference of a 64- and a 32-connection run
#   of one event each, over 32: connect, the chunk, thread_init's
#   prepares, tear-down; deterministic on a busy host), OLD's script, NEW's
#   script and NEW's native.
#   HEAP=1: instead, each build's Lua heap at THREADS read_write script
#   connections (a copy of oltp_read_write.lua whose last connection's
#   thread_init prints the shard's heap, live after a full collection)
#   and the process's peak RSS.
set -euo pipefail
OLD=$(realpath "$1")
cd "$(dirname "$0")/.."
NEW=$(realpath "${2:-target/release/qpslab}")
THREADS=${THREADS:-"16 1024"}
TIME=${TIME:-8}
ROUNDS=${ROUNDS:-3}
TABLES=${TABLES:-4}
ROWS=${ROWS:-100000}
WORKLOADS=${WORKLOADS:-"oltp_point_select oltp_read_write"}
WORKLOAD=oltp_read_write
source bench/lib.sh
source bench/measure.sh
echo "# host: $(nproc) CPUs; OLD $("$OLD" --version); NEW $("$NEW" --version)"
echo "# $TABLES tables x $ROWS rows, $TIME s a run, $ROUNDS rounds"

if [ "${IR:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 2; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  E1=${E1:-2000}
  E2=${E2:-6000}
  # ir BIN WORKLOAD_WORD EVENTS -> "Ir queries"
  ir() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" "$1" run "$2" --server bench \
      --tables "$TABLES" --table-size "$ROWS" --threads 1 --events "$3" --time 0 --report-interval 3600 \
      --rand-seed 7 --no-monitor --no-store \
      >"$tmp/log" 2>&1 || { rc=$?; [ "$rc" = 3 ] || { echo "failed: $1 $2" >&2; tail -5 "$tmp/log" >&2; exit 1; }; }
    # (exit 3, degraded: under valgrind's slowdown on a busy host the stall
    # watch may name the client stalled; the instructions are still counted)
    echo "$(grep '^summary' "$tmp/out" | cut -d' ' -f2) $(awk '/queries:/ && /per sec/{print $2}' "$tmp/log")"
  }
  for w in $WORKLOADS; do
    for r in $(seq 1 "$ROUNDS"); do
      line="$w round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
      for k in old:"$OLD":"/usr/share/sysbench/$w.lua" new:"$NEW":"/usr/share/sysbench/$w.lua" native:"$NEW":"$w"; do
        IFS=: read -r label bin word <<<"$k"
        read -r a qa <<<"$(ir "$bin" "$word" "$E1")"
        read -r b qb <<<"$(ir "$bin" "$word" "$E2")"
        line="$line $label $(( (b - a) / (qb - qa) ))"
      done
      echo "$line instructions/query"
    done
  done
  exit 0
fi

if [ "${SETUP:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 2; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # conns BIN WORKLOAD_WORD N -> instructions of the whole process
  conns() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" "$1" run "$2" --server bench \
      --tables "$TABLES" --table-size "$ROWS" --threads "$3" --events "$3" --time 0 --report-interval 3600 \
      --rand-seed 7 --no-monitor --no-store >"$tmp/log" 2>&1 || { rc=$?; [ "$rc" = 3 ] || { echo "failed: $1 $2" >&2; tail -5 "$tmp/log" >&2; exit 1; }; }
    grep '^summary' "$tmp/out" | cut -d' ' -f2
  }
  for w in $WORKLOADS; do
    for r in $(seq 1 "$ROUNDS"); do
      line="$w round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
      for k in old:"$OLD":"/usr/share/sysbench/$w.lua" new:"$NEW":"/usr/share/sysbench/$w.lua" native:"$NEW":"$w"; do
        IFS=: read -r label bin word <<<"$k"
        a=$(conns "$bin" "$word" 32)
        b=$(conns "$bin" "$word" 64)
        line="$line $label $(( (b - a) / 32 ))"
      done
      echo "$line instructions/connection"
    done
  done
  exit 0
fi

if [ "${HEAP:-0}" = 1 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  { cat /usr/share/sysbench/oltp_read_write.lua; cat <<'LUA'
local init0 = thread_init
function thread_init(...)
  init0(...)
  if sysbench.tid == sysbench.opt.threads - 1 then
    local before = collectgarbage("count")
    collectgarbage()
    io.write(string.format("lua heap %.1f MB, live %.1f MB\n", before / 1024, collectgarbage("count") / 1024))
  end
end
LUA
  } > "$tmp/oltp_heap.lua"
  for th in $THREADS; do
    for r in $(seq 1 "$ROUNDS"); do
      for k in old:"$OLD" new:"$NEW"; do
        IFS=: read -r label bin <<<"$k"
        /usr/bin/time -f "%M" -o "$tmp/rss" "$bin" run "$tmp/oltp_heap.lua" --server bench --tables "$TABLES" \
          --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0 --no-store >"$tmp/log" 2>&1 || true
        echo "$th connections round $r $label (load $(cut -d' ' -f1 /proc/loadavg)): $(grep -m1 'lua heap' "$tmp/log"), \
peak RSS $(( $(tail -n 1 "$tmp/rss") / 1024 )) MB, $(awk '/transactions:/{print $2}' "$tmp/log") transactions"
      done
    done
  done
  exit 0
fi

printf "%-18s %6s %5s %6s | %8s %7s | %8s %7s | %8s %7s | %7s %7s\n" workload threads round load \
  old_us old_MB new_us new_MB nat_us nat_MB old/nat new/nat
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for w in $WORKLOADS; do
  for th in $THREADS; do
    for r in $(seq 1 "$ROUNDS"); do
      load=$(cut -d' ' -f1 /proc/loadavg)
      common=(--server bench --tables "$TABLES" --table-size "$ROWS" --threads "$th" --time "$TIME" --report-interval 0 --no-store)
      declare -A res=()
      order=(old new nat)
      for k in $(seq 1 $(( (r - 1) % 3 ))); do order=("${order[@]:1}" "${order[0]}"); done
      for tool in "${order[@]}"; do
        case $tool in
          old) res[old]=$(one old "$OLD" run "/usr/share/sysbench/$w.lua" "${common[@]}") ;;
          new) res[new]=$(one new "$NEW" run "/usr/share/sysbench/$w.lua" "${common[@]}") ;;
          nat) res[nat]=$(one nat "$NEW" run "$w" "${common[@]}") ;;
        esac
      done
      read -r _ ou om <<<"${res[old]}"; read -r _ nu nm <<<"${res[new]}"; read -r _ tu tm <<<"${res[nat]}"
      ro=$(awk -v a="$ou" -v b="$tu" 'BEGIN{print (a+0 > 0 && b+0 > 0) ? sprintf("%.2f", a/b) : "-"}')
      rn=$(awk -v a="$nu" -v b="$tu" 'BEGIN{print (a+0 > 0 && b+0 > 0) ? sprintf("%.2f", a/b) : "-"}')
      printf "%-18s %6s %5s %6s | %8s %7s | %8s %7s | %8s %7s | %7s %7s\n" "$w" "$th" "$r" "$load" \
        "$ou" "$om" "$nu" "$nm" "$tu" "$tm" "$ro" "$rn" | tee -a "$rows"
    done
  done
done
echo; echo "== medians (ratios within each round, then their median); load now $(cut -d' ' -f1-3 /proc/loadavg)"
med() { sort -g | awk '{v[NR]=$1} END{if (NR == 0) print "-"; else print (NR%2)? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for w in $WORKLOADS; do
  for th in $THREADS; do
    col() { awk -v w="$w" -v t="$th" -v c="$1" '{gsub(/\|/,"")} $1==w && $2==t && $c!="-" {print $c}' "$rows" | med; }
    printf "%-18s %6s | old %s us %s MB | new %s us %s MB | native %s us %s MB | old/native %s new/native %s\n" \
      "$w" "$th" "$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)" "$(col 9)" "$(col 10)" "$(col 11)" "$(col 12)"
  done
done
