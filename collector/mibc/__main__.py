"""python -m collector.mibc add|rebuild|check|list (collector/mibc/cli.py): the MIB command without Django."""
import sys

from collector.mibc.cli import main

sys.exit(main())
