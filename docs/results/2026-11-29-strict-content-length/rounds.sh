# Rounds 3-6 (rounds 1-2 were the same two commands, check then nocheck). A: serve built from this branch; B: the same sources with
# the AddFreightStrictContentLength() line taken out of FreightServer.cs, both started with
# freight serve --urls http://127.0.0.1:0 --data-dir DIR --Logging:LogLevel:Default Warning, 4k.bin PUT once to each.
A=http://127.0.0.1:33905/files/4k.bin; B=http://127.0.0.1:45377/files/4k.bin; H=2656a9f9121fd15c98c9fae839edb7000ba993f55d00dec44c8e4a4d5b04449f
for round in 3 4 5 6; do
  if [ $((round % 2)) -eq 1 ]; then order="nocheck check"; else order="check nocheck"; fi
  for side in $order; do
    if [ $side = check ]; then url=$A; pid=$(cat a.pid); else url=$B; pid=$(cat b.pid); fi
    /tmp/wt-strict-length/freight load $url -c 8 -d 5 --runs 5 --expect-sha256 $H --server-pid $pid --no-progress --json $side-$round.json > $side-$round.txt 2>&1
  done
done
echo finished > rounds.done
