// A gatekeeper contact: where a subjob is submitted and which local scheduler
// starts it there (adapters/adapter_table.hpp).
//
//   host                     port 2119, fork adapter
//   host:port                fork adapter
//   host[:port]/fork         also /jobmanager-fork, /jobmanager (Globus' default service)
//   host[:port]/slurm        also /jobmanager-slurm
//   [v6-address][:port][/adapter]
//
// Parsing is pure: no name resolution.
#pragma once

#include "adapters/adapter_table.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace strata::launcher {

struct Contact {
    static constexpr int kDefaultPort = 2119;

    std::string host;
    int port = kDefaultPort;
    AdapterKind adapter = AdapterKind::fork;
    // Whether the text named the port. A contact on this machine with the fork
    // adapter and no port runs through the embedded fork adapter; with a port
    // it goes to the gatekeeper listening there.
    bool port_given = false;

    // The classic form, "host[:port]/jobmanager-fork" (the port when given or
    // not the default);
    // contact_parse reads it back to an equal contact.
    std::string text() const;
    // Where the contact points; whether the port was written does not matter.
    bool operator==(const Contact& o) const { return host == o.host && port == o.port && adapter == o.adapter; }
};

// On error returns nullopt, sets `why` to what is wrong and `offset` to where
// in `text` it starts (for a column in messages).
std::optional<Contact> contact_parse(const std::string& text, std::string& why, std::size_t& offset);

// Host names as machine files accept them (letters, digits, '-', '.', '_').
bool host_name_valid(const std::string& host);

}  // namespace strata::launcher
