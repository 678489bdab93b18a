"""The apps floor's commands that were the domain packages' own: `zatre read`,
`train`, `bench vision`, `bench gate` (``vision_cli``), `zatre replay`
(``tracking_cli``), `zatre calibrate` (``calibrate_cli``), `zatre synth`
(``synth_cli``), `zatre backup` and `restore` (``backup_cli``). The floors:
ARCHITECTURE.md and ``tests/test_import_graph.py``; nothing below this floor imports
from it."""
