"""GEC evaluation practice around USim (the seed papers' studies, one command each):
conservatism measures, sensitivity to error types from M2 files, and system comparison."""
