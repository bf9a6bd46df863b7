// One piece of a job that one scheduler adapter starts: `count` consecutive
// ranks beginning at `first_rank`, all on one machine or site.
#pragma once

#include "job/command.hpp"

#include <string>
#include <utility>
#include <vector>

namespace strata::job {

struct Subjob {
    int index = 0;        // position in the job; exported as STRATA_SUBJOB
    std::string contact;  // who starts it: kLocalContact, else a gatekeeper contact (contact.hpp)
    std::string machine;  // names the subjob in messages: its machine label, else its contact's host
    // Label of the site (local-area network): the job file's `site` (RSL's
    // GLOBUS_LAN_ID), else the contact's host. Handed to every process.
    std::string site;
    // What the job description says of where the processes are, each empty
    // unless given: the machine label (the topology's system area), a host
    // identity (processes of different identities never share memory, so one
    // machine can stand for several hosts) and the processor name they report
    // (MPI_Get_processor_name). mpirun puts them in the processes' cards.
    std::string machine_label;
    std::string host;
    std::string processor_name;
    // With a host identity at a fork contact, hostCount: the subjob's ranks
    // are spread over this many emulated nodes of that host (identities
    // HOST/1..HOST/N), in blocks as Slurm's default distribution places
    // tasks, so one machine stands for a cluster of nodes. 0: one host.
    int host_nodes = 0;
    int count = 0;
    int first_rank = 0;
    // From a job file; an empty program means the command line's program and
    // arguments. An empty directory: the starting side's default.
    Command command;
    std::string account;    // at a gatekeeper: which of the accounts the grid-mapfile maps the user to
    // At an ssh site: where Strata is installed there (mpirun runs
    // PREFIX/bin/strata-gatekeeper); empty: strata-gatekeeper on the login's PATH.
    std::string strata;
    Batch batch;  // for a batch scheduler: queue, project, wall time
    // Send the program (and these files) to the site; only subjobs at a
    // gatekeeper stage, since here the files are already in place.
    bool stage = false;
    std::vector<std::string> stage_files;
    // No other site can connect to the processes: the gatekeeper starts a
    // relay (relay/protocol.hpp) and hands its address to them.
    bool network_private = false;

    // The emulated node (0 to host_nodes - 1) of the subjob's `index`-th
    // process: the first count % host_nodes nodes take one process more.
    int host_node(int index) const;
};

// The contact of subjobs started on this machine by the embedded fork adapter.
inline constexpr const char* kLocalContact = "local";

}  // namespace strata::job
