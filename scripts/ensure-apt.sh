#!/usr/bin/env bash
# Installs the Debian packages the tests use (only those missing): dnsmasq as a real DNS server,
# prometheus for promtool (alert rule checks and unit tests), faketime to run a member agent with
# its clock ahead of or behind the control plane's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_PACKAGES=(dnsmasq-base prometheus faketime)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
log "apt-get install ${missing[*]}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
