"""Compatibility modes: reproduce other METEOR implementations' numbers exactly.

* :mod:`meteorx.compat.nltk` — ``nltk.translate.meteor_score`` (NLTK 3.10), the METEOR
  that Hugging Face ``evaluate`` and most Python code report. Same signature, same
  floats, much faster, and no ``nltk.download``. The ``nltk`` preset gives the same
  numbers through :class:`meteorx.Scorer` and the command line.
"""
