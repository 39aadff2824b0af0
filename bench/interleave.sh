#!/usr/bin/env bash
# Interleaved rounds of a peer and vart on the same problems: this 2-core machine swings by 1.5-2x
# within minutes, so one run of each side gives no honest ratio; compare the fastest round of
# each (and look at the spread). Usage: bench/interleave.sh [rounds] [peer] [problems]
#   e.g. bench/interleave.sh 4 placo P1_hexapod,P2_fourbar_chain
set -euo pipefail
ROUNDS="${1:-4}"; PEER="${2:-placo}"; PROBLEMS="${3:-P1_hexapod,P2_fourbar_chain}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$REPO/../shared/bench/peers/run.sh"
OUT="$(mktemp -d)"
ARGS=()
for p in ${PROBLEMS//,/ }; do ARGS+=(--problem "$p"); done
export OPENBLAS_NUM_THREADS=1
for i in $(seq "$ROUNDS"); do
  VART_PEERS_OUT="$OUT/$i" bash "$PEERS" --repeats 1 --peers "$PEER" --problems "$PROBLEMS" > /dev/null 2>&1
  (cd "$REPO" && "$REPO/.venv/bin/python" bench/run.py --repeats 1 "${ARGS[@]}" --json "$OUT/vart$i.json") \
    > /dev/null
  python3 - "$OUT/$i/results.json" "$OUT/vart$i.json" "$PEER" "$i" <<'PY'
import json, sys
peers, vart, peer, i = json.load(open(sys.argv[1]))["results"], json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
for run in vart:
    p = run["summary"]["problem"]
    print(f"round {i}: {peer} {p} {peers[p][peer]['med_ms']:.3f} ms")
    print(f"round {i}: vart {p} {run['summary']['median_ms']:.3f} ms")
PY
done
rm -rf "$OUT"
