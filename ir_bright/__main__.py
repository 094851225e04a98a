import sys

from .cli import main

sys.exit(main(whole_process=True))
