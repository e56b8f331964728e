"""Alignment: tokens first (bipartite matching on edit distance), then units by yield."""
