"""``python -m meteorx`` runs the command-line tool."""

import sys

from meteorx.cli.main import main

sys.exit(main())
