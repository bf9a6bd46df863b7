// A gatekeeper contact: where a subjob is submitted and which local scheduler
// starts it there (job/adapter_table.hpp).
//
//   host                     port 2119, fork adapter
//   host:port                fork adapter
//   host[:port]/fork         also /jobmanager-fork, /jobmanager (Globus' default service)
//   host[:port]/slurm        also /jobmanager-slurm
//   [v6-address][:port][/adapter]
//
// or a login reached with ssh, where mpirun starts a user-level gatekeeper
// over the session (no port of ours, no certificate; launcher/stdio_channel.hpp):
//
//   [user@]host[:port]/ssh         the fork adapter on the login host
//   [user@]host[:port]/ssh+fork    the same
//   [user@]host[:port]/ssh+slurm   Slurm, from the login host
//
// where the port is sshd's (default: what the user's ssh configuration
// says) and the user the login name (default: ssh's choice); or a node of
// the Slurm allocation mpirun runs in, reached with srun (the same
// user-level gatekeeper, over the step's stdin and stdout):
//
//   node/srun

//
// Parsing is pure: no name resolution.
#pragma once

#include "job/adapter_table.hpp"
#include "base/result.hpp"

#include <cstddef>
#include <functional>
#include <string>

namespace strata::job {

// How mpirun reaches the site: a gatekeeper's TLS port, an ssh login, or a
// node of its Slurm allocation.
enum class Transport { gatekeeper, ssh, srun };

struct Contact {
    static constexpr int kDefaultPort = 2119;

    std::string host;
    int port = kDefaultPort;  // ssh: meaningful only when port_given
    AdapterKind adapter = AdapterKind::fork;
    // Whether the text named the port. A contact on this machine with the fork
    // adapter and no port runs through the embedded fork adapter; with a port
    // it goes to the gatekeeper listening there.
    bool port_given = false;
    Transport transport = Transport::gatekeeper;
    std::string user = {};  // ssh only: the login name; empty: ssh's choice

    // The classic form, "host[:port]/jobmanager-fork" (the port when given or
    // not the default), or "[user@]host[:port]/ssh+fork";
    // contact_parse reads it back to an equal contact.
    std::string text() const;
    // Where the contact points; whether the port was written does not matter.
    bool operator==(const Contact& o) const {
        return transport == o.transport && user == o.user && host == o.host && port == o.port && adapter == o.adapter;
    }
};

// Words a failure: `what` is wrong at `offset` in the text (for a column in
// messages, as a file's reader counts it).
using ContactErrorAt = std::function<base::Error(std::size_t offset, const std::string& what)>;

// A failure is `at(offset, what is wrong)`; without `at`, what is wrong.
base::Result<Contact> contact_parse(const std::string& text, const ContactErrorAt& at);
base::Result<Contact> contact_parse(const std::string& text);

// Host names as machine files accept them (letters, digits, '-', '.', '_').
bool host_name_valid(const std::string& host);
// Login names as ssh contacts accept them (letters, digits, '-', '.', '_';
// never a leading '-', so ssh cannot read one as an option).
bool user_name_valid(const std::string& user);

}  // namespace strata::job
