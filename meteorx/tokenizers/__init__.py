"""Tokenizers and normalisers used before alignment (e.g. Meteor 1.5's ``-norm``)."""
