# Shared by bin/bench-*: pick a JDK 21+, build herald-bench with its dependencies, run one benchmark main.
# Usage (from a bin/bench-* script):  . "$root/bin/lib/bench.sh"; herald_run_bench dev.herald.bench.StoreBench "$@"
# shellcheck shell=bash

herald_run_bench() {
  local main=$1
  shift
  local root
  root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
  # shellcheck source=jdk.sh
  . "$root/bin/lib/jdk.sh"
  herald_select_jdk || exit 1
  herald_quiet_maven
  cd "$root" || exit 1
  local classpath_file="$root/herald-bench/target/bench.classpath"
  mvn -B -ntp -q -Dstyle.color=never -DskipTests -pl herald-bench -am package dependency:build-classpath \
    -Dmdep.includeScope=runtime -Dmdep.outputFile="$classpath_file" >&2 || exit 1
  exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx2g \
    -cp "$root/herald-bench/target/classes:$(cat "$classpath_file")" "$main" "$@"
}
