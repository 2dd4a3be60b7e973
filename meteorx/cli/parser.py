"""The command line's argument parser class and the examples its help ends with."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["EPILOG", "Parser"]

EPILOG = """examples:
  meteorx score --hyp hyp.txt --ref ref.txt --preset meteor-1.5-en --norm lower
  meteorx score --hyp hyp.txt --ref ref.txt --preset li --lang pt --format json
  meteorx score --hyp a.txt --hyp b.txt --ref ref.txt -p li -l en --paired-bs --confidence
  meteorx score --input-format sgml --hyp test.sgm --ref ref.sgm -p li -l en --scr out
  meteorx score --hyp hyp.txt --ref ref.txt --config my.yaml --jobs 2 --stats-out s.tsv
  meteorx combine s.tsv --alpha 0.8                (re-score stored statistics)
  meteorx report --hyp a.txt --hyp b.txt --ref ref.txt -p li -l en -o report.html
  meteorx tune --config base.yaml --human seg.tsv --hyp-dir hyp/ --ref ref.txt -o tuned.yaml
  meteorx correlate -p meteorx -p li -l en --baseline chrf --human seg.tsv --hyp-dir hyp/ -r r.txt
  meteorx config --preset li --lang de        (show the resolved configuration)
  meteorx presets | plugins | languages

Configuration precedence: preset < --config file (which may 'extends' a preset) <
--lang/--norm. Documentation: README.md and docs/ in the source distribution."""


class Parser(argparse.ArgumentParser):
    """An argument error is one line, like every other error (``--help`` shows usage);
    subcommand parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")
