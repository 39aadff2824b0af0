#!/usr/bin/env bash
# Interleaved rounds of a peer and vart on the same problems: this 2-core machine swings by 1.5-2x
# within minutes, so one run of each side gives no honest ratio; compare the fastest round of
# each and the median of the rounds. Usage: bench/interleave.sh [rounds] [peer] [problems]
#   e.g. bench/interleave.sh 4 placo P1_hexapod,P2_fourbar_chain
# Environment: REPEATS (passes per run on each side, per frame their median; default 1);
# VART_REPOS (space-separated vart checkouts run in each round, e.g. an older copy made by
# `git archive <commit> | tar -x -C /tmp/old` beside this one: before and after in one session;
# a copy's bench/run.py reads ../shared/bench/problems beside it: `ln -s <shared> /tmp/shared`).
set -euo pipefail
ROUNDS="${1:-4}"; PEER="${2:-placo}"; PROBLEMS="${3:-P1_hexapod,P2_fourbar_chain}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$REPO/../shared/bench/peers/run.sh"
REPEATS="${REPEATS:-1}"
read -r -a VREPOS <<< "${VART_REPOS:-$REPO}"
OUT="$(mktemp -d)"
ARGS=()
for p in ${PROBLEMS//,/ }; do ARGS+=(--problem "$p"); done
export OPENBLAS_NUM_THREADS=1
for i in $(seq "$ROUNDS"); do
  VART_PEERS_OUT="$OUT/$i" bash "$PEERS" --repeats "$REPEATS" --peers "$PEER" \
    --problems "$PROBLEMS" > /dev/null 2>&1
  for k in "${!VREPOS[@]}"; do
    (cd "${VREPOS[$k]}" && "$REPO/.venv/bin/python" bench/run.py --repeats "$REPEATS" \
      "${ARGS[@]}" --json "$OUT/vart$k.$i.json") > /dev/null
  done
  echo "round $i done" >&2
done
python3 - "$OUT" "$PEER" "$ROUNDS" "${VREPOS[@]}" <<'PY'
import json, statistics, sys
out, peer, rounds, repos = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
peer_ms, vart_ms = {}, {}
for i in range(1, rounds + 1):
    for p, r in json.load(open(f"{out}/{i}/results.json"))["results"].items():
        peer_ms.setdefault(p, []).append(r[peer]["med_ms"])
    for k in range(len(repos)):
        for run in json.load(open(f"{out}/vart{k}.{i}.json")):
            s = run["summary"]
            vart_ms.setdefault((k, s["problem"]), []).append(s["median_ms"])
print(f"ms per frame (median over frames), {rounds} interleaved rounds; median / fastest round")
print(f"| problem | {peer} ms | vart ms | checkout | ratio (medians) | ratio (fastest) | rounds (vart) |")
print("|---|---|---|---|---|---|---|")
for p, pm in peer_ms.items():
    for k, repo in enumerate(repos):
        vm = vart_ms[(k, p)]
        mp, mv = statistics.median(pm), statistics.median(vm)
        print(f"| {p} | {mp:.3f} / {min(pm):.3f} | {mv:.3f} / {min(vm):.3f} | {repo} | "
              f"{mv / mp:.2f}x | {min(vm) / min(pm):.2f}x | {' '.join(f'{v:.3f}' for v in vm)} |")
PY
rm -rf "$OUT"
