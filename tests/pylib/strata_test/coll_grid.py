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

# Seed 000's Figures 1 and 2: 16 processes on the IBM SP at LLNL (4-way SMP
# nodes: the switch across them, shared memory inside one), 8 on the SGI
# Origin2000 and 8 on the IBM SP at ANL (here one per node). No machine labels:
# each subjob is a machine, as in MPICH-G2. The SPs' switch is the ofi method
# (its tcp provider) across emulated nodes (host_count with a host identity).
SEED000_GRID = """\
subjobs:
  - {count: 16, site: LLNL, host: llnl-sp, host_count: 4, environment: {STRATA_OFI_PROVIDER: 'tcp;ofi_rxm'}}
  - {count: 8, site: ANL, host: anl-o2k}
  - {count: 8, site: ANL, host: anl-sp, host_count: 8, environment: {STRATA_OFI_PROVIDER: 'tcp;ofi_rxm'}}
"""
SEED000_PROCESSES = 32
# What a job on it that the ofi method cannot serve here says (the test skips).
OFI_MISSING = "STRATA_OFI_PROVIDER"

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

# One site of four machines (1 or 2 processes each) and the parameters of its
# own links (0.5 ms, 1 Gbit/s): the broadcast's stage between the machines
# follows the model.
SITE_GRID = """\
subjobs:
  - {count: 2, site: A, host: a1}
  - {count: 1, site: A, host: a2}
  - {count: 2, site: A, host: a3}
  - {count: 1, site: A, host: a4}
"""
SITE_PROCESSES = 6
PLOGP_SITE = "sizes 0 1K 1M\n" + PLOGP_SITES.split("link C C")[0].replace("link B B", "link A A")
