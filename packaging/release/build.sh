#!/usr/bin/env bash
# Assembles Herald's release from the runnable jar: a jlink'ed Java runtime with only the modules Herald
# needs, an AOT cache made by a short training run, the launcher, and from them
#   herald-<version>-linux-x64.tar.gz   (unpack anywhere; bin/herald runs it)
#   herald_<debian version>_amd64.deb   (/opt/herald, /usr/bin/herald, /etc/herald/config.yaml, the unit)
# Called by `bin/release` (through herald-app's Maven profile "release", or directly with --jar).
# Usage: build.sh --jar FILE --version V --commit C --out DIR
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
packaging=$(dirname "$here")
jar="" version="" commit="unknown" out=""
while [ $# -gt 0 ]; do
  case $1 in
    --jar) jar=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --commit) commit=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "release - unknown argument $1" >&2; exit 64 ;;
  esac
done
[ -f "$jar" ] || { echo "release - no jar at '$jar'; build it first (mvn -pl herald-app -am package)" >&2; exit 1; }
[ -n "$version" ] && [ -n "$out" ] || { echo "release - --version and --out are required" >&2; exit 64; }
: "${JAVA_HOME:?release - JAVA_HOME must name the JDK whose runtime is bundled (bin/lib/jdk.sh picks one)}"
for tool in jlink jdeps; do
  [ -x "$JAVA_HOME/bin/$tool" ] || { echo "release - $JAVA_HOME has no bin/$tool; a full JDK is needed" >&2; exit 1; }
done
command -v dpkg-deb >/dev/null || { echo "release - dpkg-deb is missing (apt-get install dpkg)" >&2; exit 1; }

started=$SECONDS
step() { echo "release - $* ($((SECONDS - started)) s)"; }
name="herald-$version"
deb_version=${version//-/\~}            # 0.1.0-SNAPSHOT -> 0.1.0~SNAPSHOT: sorts before the 0.1.0 release
work="$out/work"
rm -rf "$work" && mkdir -p "$work" "$out"
stage="$work/$name"
mkdir -p "$stage/bin" "$stage/lib" "$stage/share"

# --- modules: the pinned list, checked against what jdeps finds in the jar ------------------------------
list() { grep -v '^[[:space:]]*#' "$1" | sed '/^[[:space:]]*$/d'; }
modules=$(list "$here/modules" | paste -sd, -)
if [ "${HERALD_RELEASE_SKIP_JDEPS:-0}" != 1 ]; then
  step "jdeps: modules the jar uses"
  found=$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 21 "$jar" 2>/dev/null | tail -n 1)
  missing=()
  for m in ${found//,/ }; do
    if ! list "$here/modules" | grep -qx "$m" && ! list "$here/modules.excluded" | grep -qx "$m"; then
      missing+=("$m")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "release - jdeps finds module(s) ${missing[*]} in use that packaging/release/modules neither lists nor excludes;" \
      "add each to modules (or, after checking that Herald never loads it, to modules.excluded)" >&2
    exit 1
  fi
fi

# --- runtime ---------------------------------------------------------------------------------------------
step "jlink: runtime with $modules"
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress zip-6 --output "$stage/runtime"
cp "$jar" "$stage/lib/herald.jar"
"$JAVA_HOME/bin/java" "$here/SlimJar.java" "$stage/lib/herald.jar" org/sqlite/native/Linux/x86_64
install -m 755 "$here/herald" "$stage/bin/herald"
install -m 644 "$(dirname "$packaging")/bin/lib/jvm-options.sh" "$stage/lib/jvm-options.sh"
cp "$here/config.yaml" "$stage/share/config.yaml"
cp "$packaging/systemd/herald.service" "$stage/share/herald.service"
printf 'herald %s\ncommit %s\n' "$version" "$commit" > "$stage/share/VERSION"

# --- AOT cache: the classes a start and an API round trip load, parsed and linked ahead of time --------
# (it holds the JDK's classes too, so the runtime needs no default CDS archive of its own)
if [ "${HERALD_RELEASE_AOT:-1}" = 1 ]; then
  step "AOT cache: training run"
  "$here/train.sh" "$stage" "$work/train" || { echo "release - the training run failed; no AOT cache" >&2; rm -f "$stage/lib/herald.aot"; }
fi

# --- tarball ---------------------------------------------------------------------------------------------
tarball="$out/$name-linux-x64.tar.gz"
step "tarball"
tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name -cf - "$name" | gzip -6 > "$tarball"

# --- Debian package ----------------------------------------------------------------------------------------
step "Debian package"
root="$work/deb"
mkdir -p "$root/opt" "$root/usr/bin" "$root/etc/herald" "$root/lib/systemd/system" "$root/DEBIAN"
cp -a "$stage" "$root/opt/herald"
cp "$here/herald.env.deb" "$root/opt/herald/lib/herald.env"
ln -s ../../opt/herald/bin/herald "$root/usr/bin/herald"
install -m 640 "$here/config.yaml" "$root/etc/herald/config.yaml"
install -m 644 "$packaging/systemd/herald.service" "$root/lib/systemd/system/herald.service"
install -m 755 "$packaging/deb/postinst" "$packaging/deb/prerm" "$packaging/deb/postrm" "$root/DEBIAN/"
install -m 644 "$packaging/deb/conffiles" "$root/DEBIAN/conffiles"
size_kib=$(du -sk --exclude=DEBIAN "$root" | cut -f 1)
sed -e "s/@DEB_VERSION@/$deb_version/" -e "s/@INSTALLED_SIZE@/$size_kib/" "$packaging/deb/control.in" > "$root/DEBIAN/control"
deb="$out/herald_${deb_version}_amd64.deb"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null

runtime_mib=$(du -sm "$stage/runtime" | cut -f 1)
step "done"
echo "release - $(basename "$tarball"): $(du -m "$tarball" | cut -f 1) MiB ($(stat -c %s "$tarball") bytes; runtime unpacked $runtime_mib MiB)"
echo "release - $(basename "$deb"): $(du -m "$deb" | cut -f 1) MiB ($(stat -c %s "$deb") bytes)"
echo "$tarball" > "$out/tarball.path"
echo "$deb" > "$out/deb.path"
