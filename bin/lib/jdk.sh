# shellcheck shell=bash
# Chooses the JDK for Herald's scripts (sourced by bin/herald, bin/test and .ci/run).
#
# herald_select_jdk picks, in order:
#   1. $JAVA_HOME, when its java is version 21 or newer;
#   2. else the newest JDK 21+ among $HERALD_JVM_DIRS (default: /usr/lib/jvm/* and macOS's
#      /Library/Java/JavaVirtualMachines/*/Contents/Home);
#   3. else the java on PATH, when it is 21 or newer;
# then exports JAVA_HOME and puts its bin first on PATH. With none, it prints what it found and returns 1.
# herald_quiet_maven then silences the sun.misc.Unsafe warnings Maven's own libraries print on JDK 23+.

HERALD_MIN_JAVA=21

# Prints the full version ("25.0.1", "17.0.15", "1.8.0_292") of the JDK at $1, from its release file, else from
# `java -version` (a JDK without a release file); returns 1 when $1 has no runnable java. Reading the file first keeps
# each script's start fast: `java -version` starts a JVM (about 50 ms) for each JDK on the machine.
herald_java_version() {
  local home=$1 v=""
  [ -x "$home/bin/java" ] || return 1
  if [ -f "$home/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)"$/\1/p' "$home/release" | head -n 1)
  fi
  if [ -z "$v" ]; then
    v=$("$home/bin/java" -version 2>&1 | sed -n 's/^[^"]* version "\([^"]*\)".*/\1/p' | head -n 1) || true
  fi
  [ -n "$v" ] || return 1
  printf '%s\n' "$v"
}

# "25.0.1" -> 25, "1.8.0_292" -> 8.
herald_java_major() {
  local v=$1
  case $v in 1.*) v=${v#1.} ;; esac
  v=${v%%[!0-9]*}
  printf '%s\n' "${v:-0}"
}

# True when version $1 sorts after version $2.
herald_version_newer() {
  [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$1" ]
}

herald_select_jdk() {
  local chosen="" chosen_version="" candidate v found=()
  if [ -n "${JAVA_HOME:-}" ]; then
    if v=$(herald_java_version "$JAVA_HOME") && [ "$(herald_java_major "$v")" -ge "$HERALD_MIN_JAVA" ]; then
      chosen=$JAVA_HOME
    else
      found+=("JAVA_HOME=$JAVA_HOME (${v:-no java there})")
    fi
  fi
  if [ -z "$chosen" ]; then
    local dirs=${HERALD_JVM_DIRS:-/usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home}
    for candidate in $dirs; do
      candidate=${candidate%/}
      v=$(herald_java_version "$candidate") || continue
      if [ "$(herald_java_major "$v")" -lt "$HERALD_MIN_JAVA" ]; then
        found+=("$candidate ($v)")
      elif [ -z "$chosen" ] || herald_version_newer "$v" "$chosen_version"; then
        chosen=$candidate
        chosen_version=$v
      fi
    done
  fi
  if [ -z "$chosen" ] && command -v java >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if v=$(herald_java_version "$candidate") && [ "$(herald_java_major "$v")" -ge "$HERALD_MIN_JAVA" ]; then
      chosen=$candidate
    else
      found+=("java on PATH: $candidate (${v:-unknown version})")
    fi
  fi
  if [ -z "$chosen" ]; then
    {
      echo "herald: needs a JDK $HERALD_MIN_JAVA or newer, and none was found."
      if [ ${#found[@]} -gt 0 ]; then
        printf '  found: %s\n' "${found[@]}"
      fi
      echo "  Install one (e.g. Temurin 21+ or apt-get install openjdk-21-jdk-headless) and/or set JAVA_HOME to it."
    } >&2
    return 1
  fi
  export JAVA_HOME=$chosen
  export PATH="$JAVA_HOME/bin:$PATH"
}

# Maven 3.8/3.9 libraries call sun.misc.Unsafe, which JDK 23+ warns about on every build; allow it quietly.
herald_quiet_maven() {
  local v
  v=$(herald_java_version "$JAVA_HOME") || return 0
  if [ "$(herald_java_major "$v")" -ge 23 ]; then
    case " ${MAVEN_OPTS:-} " in
      *sun-misc-unsafe-memory-access*) ;;
      *) export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow" ;;
    esac
  fi
}
