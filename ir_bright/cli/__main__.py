import sys

from . import main

sys.exit(main(whole_process=True))
