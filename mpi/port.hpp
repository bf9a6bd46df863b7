// Client/server between separately started jobs (MPI-2 §5.4): the ports this
// process opened and the other jobs' processes it is connected to.
//
// MPI_Comm_accept and MPI_Comm_connect join two groups into an
// intercommunicator. Their roots talk over the port (wireup/port.hpp): they
// prove the port's secret to each other, agree on a context pair free in both
// groups, and swap their groups' business cards. Each side's root then hands
// the outcome to its group, and every member adds the other group's processes
// to its engine (adi::PeerSet): they get the indexes after the processes known
// so far, so a communicator's rank -> process table (Comm::world) names them
// like world ranks, and the methods link to them as to ranks of the job (TCP,
// its handshake proving the set's key instead of the job key).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/unique_fd.hpp"
#include "wireup/port.hpp"
#include "wireup/protocol.hpp"
#include "wireup/topology.hpp"

namespace strata::mpi {

// A port this process opened (MPI_Open_port) and has not closed.
struct Port {
    base::UniqueFd listener;
    wireup::port::Name name;
    std::string text;  // the name as the program got it
};

// Processes of another job joined through one accept/connect: engine indexes
// [first, first + count). `refs` counts the communicators that hold them
// (comm_register / comm_destroy); MPI_Comm_disconnect of the last one
// closes their links.
struct PeerSetUse {
    std::uint64_t id = 0;
    int first = 0;
    int count = 0;
    int refs = 0;
};

// The card of process `index`: a world rank, or another job's process.
const wireup::BusinessCard& card_of(int index);
// The topology of every process this one knows (Comm::world indexes): the
// world's, or with other jobs' processes the joined one.
const wireup::Topology& topology_all();
// A communicator holding processes of set `id` came or went.
void peer_set_hold(std::uint64_t id);
// Returns the set's references left.
int peer_set_drop(std::uint64_t id);

}  // namespace strata::mpi
