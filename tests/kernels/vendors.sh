#!/bin/sh
# Writes an OCL_ICD_VENDORS folder with the PoCL and Oclgrind ICDs (when installed) and,
# given its path, ShadowCL's libshadowcl.so, so case-runner can see all platforms at once.
#   tests/kernels/vendors.sh DIR [path/to/libshadowcl.so]
#   export OCL_ICD_VENDORS=DIR
set -eu
dir=${1:?usage: vendors.sh DIR [libshadowcl.so]}
mkdir -p "$dir"
if [ -f /etc/OpenCL/vendors/pocl.icd ]; then
  cp /etc/OpenCL/vendors/pocl.icd "$dir/pocl.icd"
fi
for lib in /usr/lib/oclgrind/liboclgrind-rt-icd.so /usr/lib/x86_64-linux-gnu/liboclgrind-rt-icd.so; do
  if [ -f "$lib" ]; then
    echo "$lib" > "$dir/oclgrind.icd"
    break
  fi
done
if [ $# -ge 2 ]; then
  lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  [ -f "$lib" ] || { echo "vendors.sh: no such library: $2" >&2; exit 1; }
  echo "$lib" > "$dir/shadowcl.icd"
fi
ls "$dir"
