import sys

from buzzerbox.cli import main

sys.exit(main())
