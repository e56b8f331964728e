"""The metrics: USim (paper and legacy variants), DAG F-score and DistSim."""
