import sys

from workbench.core.tokenizers.registry import main

sys.exit(main(sys.argv[1:]))
