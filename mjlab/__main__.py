"""``python -m mjlab`` runs the command line."""

import sys

from mjlab.cli import main

sys.exit(main())
