#!/usr/bin/env bash
# Writes 1 GiB (dd from /dev/zero, 1 MiB blocks) into a new file under four conditions and prints the system CPU seconds:
# A right after deleting a synced 1 GiB file; B 3 s after such a delete; A2 as A; C after 3 s with nothing freed.
w() { /usr/bin/time -f "%S" dd if=/dev/zero of=$1 bs=1M count=1024 status=none 2>&1; }
dd if=/dev/zero of=/tmp/scratch.bin bs=1M count=1024 status=none; sync
for i in $(seq 1 8); do
  # A: right after deleting a synced 1 GiB file
  rm /tmp/scratch.bin; a=$(w /tmp/up.bin); rm /tmp/up.bin; sync
  # B: 3 s after a delete
  sleep 3; b=$(w /tmp/up.bin); sync
  # A2: delete B's file, write scratch at once (re-creates the scratch)
  rm /tmp/up.bin; a2=$(w /tmp/scratch.bin); sync
  # C: 3 s pause, scratch kept (nothing freed)
  sleep 3; c=$(w /tmp/up.bin); rm /tmp/up.bin; sync
  echo "round $i: A(after delete) $a  B(3s after delete) $b  A2(after delete) $a2  C(nothing freed, 3s) $c"
done
rm -f /tmp/scratch.bin
