"""python -m pbem.cli"""

from . import main

main()
