"""Helpers shared by Strata's Python integration tests (tests/integration/*/*.py).

    harness    a test's context (Ctx: mpirun, a marker on every process, a scratch
               directory), the checks (check, expect_*), and the scenario runner
               (run_scenario, program_main) with its --list of scenario names
    grid       real strata-gatekeepers on loopback: Grid, Gatekeeper, a private
               Slurm, network namespaces, grid_main
    ssh        login nodes: OpenSSH's sshd in the sites' network namespaces, with
               key authentication for an account made for the test (SshLogins)
    coll_grid  the emulated grid the collective tests run on

meson runs every Python test with this folder's parent on PYTHONPATH
(tests/meson.build); to run a script by hand, set it the same way:
PYTHONPATH=tests/pylib python3 tests/integration/...
"""
