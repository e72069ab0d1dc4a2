"""The simulation tests' helpers live in sim_helpers.py; this puts the folder on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
