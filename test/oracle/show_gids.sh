#!/usr/bin/env bash
# Test oracle: the show_gids algorithm as documented (docs seed-context §3.3), written independently of kube-rdma,
# over a root prefix and with numeric ordering (devices by `sort -V`, ports and GID indices by `sort -n`) instead
# of the script's `ls` order.
# Usage: show_gids.sh ROOT [DEVICE...]
set -u
root=${1:?usage: show_gids.sh ROOT [DEVICE...]}
shift
black="0000:0000:0000:0000:0000:0000:0000:0000"
bare_ll="fe80:0000:0000:0000:0000:0000:0000:0000"
base="$root/sys/class/infiniband"
if [ $# -gt 0 ]; then devs="$*"; else devs=$(ls "$base" | LC_ALL=C sort -V); fi

echo -e "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV"
echo -e "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---"
cnt=0
for d in $devs; do
  for p in $(ls "$base/$d/ports/" | sort -n); do
    for g in $(ls "$base/$d/ports/$p/gids/" | sort -n); do
      read -r gid < "$base/$d/ports/$p/gids/$g" || continue
      if [ "$gid" = "$black" ] || [ "$gid" = "$bare_ll" ]; then continue; fi
      # Builtins only (read, [[ =~ ]], printf -v) instead of cat/grep: same result, no fork per row.
      ndev="" raw="" type=""
      { read -r ndev < "$base/$d/ports/$p/gid_attrs/ndevs/$g"; } 2>/dev/null
      { read -r raw < "$base/$d/ports/$p/gid_attrs/types/$g"; } 2>/dev/null
      if [[ $raw =~ [Vv].* ]]; then type=${BASH_REMATCH[0]}; fi
      if [ "${gid:0:4}" = "0000" ]; then
        printf -v ipv4 "%d.%d.%d.%d" "0x${gid:30:2}" "0x${gid:32:2}" "0x${gid:35:2}" "0x${gid:37:2}"
        echo -e "$d\t$p\t$g\t$gid\t$ipv4  \t$type\t$ndev"
      else
        echo -e "$d\t$p\t$g\t$gid\t\t\t$type\t$ndev"
      fi
      cnt=$((cnt + 1))
    done
  done
done
echo "n_gids_found=$cnt"
