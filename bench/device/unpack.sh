# Sourced by bench/device/run*.sh on the lent machine (REPO and OUT set):
# unpacks what bench/device/stage.sh packed (a bare machine has no MariaDB
# or sysbench), installs it, records the host, and returns to REPO with
# QPSLAB_HOME=/tmp/qh and Q (the new qpslab) set.
[ -e /usr/bin/mariadb-install-db ] || { printf "#!/bin/sh\nexit 1\n" > /usr/bin/mariadb-install-db; chmod +x /usr/bin/mariadb-install-db; }  # the datadir comes initialised
cd /tmp && tar -xzf "$REPO/.dev/st.tgz" && cd st || exit 1
cp bin/mariadbd /usr/sbin/; for b in sysbench mariadb bc time; do command -v $b >/dev/null || cp bin/$b /usr/bin/; done
mkdir -p /opt/qlib && cp lib/* /opt/qlib/ && export LD_LIBRARY_PATH=/opt/qlib
mkdir -p /usr/share/mysql && cp -r share/mysql/* /usr/share/mysql/ && cp -r share/sysbench /usr/share/
tar -C /tmp -xf qh.tar
export QPSLAB_HOME=/tmp/qh
Q=/tmp/st/bin/qpslab
{ nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; cat /proc/loadavg; } | tee $OUT/host.txt
cd "$REPO" || exit 1
