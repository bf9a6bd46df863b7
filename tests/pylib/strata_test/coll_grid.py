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
