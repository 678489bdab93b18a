#!/bin/bash
# issue 61: the print-world board network (28 epochs) with its fallbacks and the pip
# network's decision refitted, through the gate. Run from /work/main at a clean commit.
set -euo pipefail
D=/root/land-world
PY=/work/main/.venv/bin/python
cd /work/main
cp /root/board-world/board-world28.onnx $D/board.onnx
cp /root/board-world/board-world28.onnx.json $D/board.onnx.json
cp models/pips.onnx $D/pips.onnx
cp models/pips.onnx.json $D/pips.onnx.json
date -u +"fit-locate start %FT%TZ"
$PY -m zatre_vision.training.fit_locator --board-model $D/board.onnx --model $D/pips.onnx --photos 120 --cache /root/.cache/zatre-fit-photos
date -u +"fit start %FT%TZ"
$PY -m zatre_vision.training.fit_reader --model $D/pips.onnx --board-model $D/board.onnx --photos 120 --photo-cache /root/.cache/zatre-fit-photos --workers 2
date -u +"gate start %FT%TZ"
set +e
.venv/bin/zatre bench gate $D/pips.onnx --board-model $D/board.onnx --folder ../shared/photos/outside-renderer --cache /root/.cache/zatre-gate --out $D/gate.md
echo "gate exit $?"
date -u +"done %FT%TZ"
