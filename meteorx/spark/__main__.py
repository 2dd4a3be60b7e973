"""``python -m meteorx.spark``, and the script to give ``spark-submit``
(:data:`meteorx.spark.JOB_SCRIPT`): see :mod:`meteorx.spark.job`."""

import sys

from meteorx.spark.job import main

if __name__ == "__main__":
    sys.exit(main())
