#!/usr/bin/env bash
# Prints the Debian mirror icount makes roots from and downloads Debian's
# sources from: $ICOUNT_DEBIAN_MIRROR when set, otherwise the first URI
# this machine's apt sources give for a Debian release's own archive (not
# its -updates, -backports or -security pocket), as apt itself reads them:
# one-line and deb822 files, without deb-src entries or those with
# "Enabled: no".
#
#   mirror=$(environment/debian_mirror.sh)
#
# Says why on stderr and exits 1 when there is none. Asked by
# environment/root.cc (DebianMirror) and bench/c10_rebuild.sh: one rule.
set -euo pipefail
if [[ -n ${ICOUNT_DEBIAN_MIRROR:-} ]]; then
  echo "$ICOUNT_DEBIAN_MIRROR"
  exit 0
fi
targets=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' \
  'Identifier: Packages') || {
  echo "apt-get indextargets failed (see above): this machine's apt sources cannot be read" >&2
  exit 1
}
mirror=$(awk '$2 !~ /-/ { print $1; exit }' <<< "$targets")
if [[ -z $mirror ]]; then
  echo "no Debian mirror in this machine's apt sources (/etc/apt/sources.list," \
    "/etc/apt/sources.list.d/): add one, or set ICOUNT_DEBIAN_MIRROR=<mirror URL>" >&2
  exit 1
fi
echo "$mirror"
