// Which network and which ports the TCP method uses.
//
// STRATA_NETWORK (mpirun -net) names an interface ("eth1") or an IPv4 subnet
// ("10.77.0.0/16"); the listener binds to that interface's address and only
// that address is published. Unset: listen on all addresses and publish every
// IPv4 address of every interface that is up, loopback last.
// STRATA_PORT_RANGE (mpirun -port-range) "LOW:HIGH" restricts listening ports
// for firewalls; unset lets the kernel pick. Each process publishes where it
// listens in its card as "ADDRESS[,ADDRESS...]:PORT", its addresses
// preferred first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"

namespace strata::dev::tcp {

struct Interface {
    std::string name;
    std::uint32_t address = 0;  // host byte order
    std::uint32_t netmask = 0;
    bool loopback = false;
};

std::vector<Interface> interfaces_list();
std::string ipv4_text(std::uint32_t host_order);

struct NetworkChoice {
    bool any = true;                  // bind to INADDR_ANY
    std::uint32_t bind_address = 0;   // host order, when !any
    std::vector<std::string> publish; // addresses to publish, preferred first
};

// Resolves `spec` (may be empty) against `ifs`; fails if it matches nothing.
base::Result<NetworkChoice> network_choose(const std::string& spec, const std::vector<Interface>& ifs);

struct PortRange {
    int low = 0;   // 0 = any port
    int high = 0;
};

base::Result<PortRange> port_range_parse(const std::string& spec);

// Where a peer listens, as its card says.
struct CardAddress {
    std::vector<std::string> addresses;  // preferred first; never empty
    int port = 0;
};

// "ADDRESS[,ADDRESS...]:PORT" as publish() writes it; fails with what is
// wrong, for the caller to say whose card it is.
base::Result<CardAddress> card_address_parse(const std::string& text);

// A listening socket (non-blocking, close-on-exec) on the network that
// STRATA_NETWORK selects, at a port of STRATA_PORT_RANGE tried from the
// `start`-th on (so processes of one host rarely collide), and the card
// address that reaches it ("ADDRESS[,ADDRESS...]:PORT"). The TCP method's
// listener, and MPI_Open_port's.
struct Listening {
    base::UniqueFd fd;
    int port = 0;
    std::string address;
};
base::Result<Listening> listener_open(int start);

}  // namespace strata::dev::tcp
