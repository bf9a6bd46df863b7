"""The emulated grid the collective tests run on (coll/grid_test.py, coll/matrix_test.py),
as the subjobs of a job file.

It is uneven on purpose: site A has one process, site B one machine of one process
and one of two, site C two machines of two processes, one of them with TCP only (so a
machine splits further into single processes).
"""

GRID = """\
subjobs:
  - {count: 1, site: A, machine: a1, host: a1}
  - {count: 1, site: B, machine: b1, host: b1}
  - {count: 2, site: B, machine: b2, host: b2}
  - {count: 2, site: C, machine: c1, host: c1}
  - {count: 2, site: C, machine: c2, host: c2, environment: {STRATA_EXCLUDE_METHODS: shm}}
"""
PROCESSES = 8

# P-LogP parameters for the grid's sites: a 10 ms, 100 Mbit/s wide area
# between them (the model need not match the emulation for correctness).
PLOGP = """\
sizes 0 1K 1M
link A B latency 10000
link A B os 5 6 40
link A B or 5 6 40
link A B g 6 88 83892
link A C latency 10000
link A C os 5 6 40
link A C or 5 6 40
link A C g 6 88 83892
link B C latency 10000
link B C os 5 6 40
link B C or 5 6 40
link B C g 6 88 83892
"""
# The links inside sites B and C (0.5 ms, 1 Gbit/s): the whole grid is covered.
PLOGP_SITES = """\
link B B latency 500
link B B os 2 3 20
link B B or 2 3 20
link B B g 3 10 8400
link C C latency 500
link C C os 2 3 20
link C C or 2 3 20
link C C g 3 10 8400
"""
