// Which host names and addresses denote this machine.
//
// The fork adapter can only start processes here, so every host a machine
// file names must pass is_local(). Built once from gethostname() and
// getifaddrs() (probe()), or from explicit data in tests.
#pragma once

#include <netinet/in.h>

#include <string>
#include <vector>

namespace strata::job {

class LocalHost {
public:
    static LocalHost probe();
    LocalHost(std::string hostname, const std::vector<std::string>& addresses);

    const std::string& hostname() const { return hostname_; }
    // hostname() up to its first dot.
    std::string short_name() const;

    // Without any name resolution: "localhost", loopback addresses, this
    // host's name (short or as gethostname() gives it) and its interface
    // addresses.
    bool is_local_literal(const std::string& host) const;
    // is_local_literal(), else whether `host` resolves to a local address
    // (covers the FQDN when gethostname() is short, and /etc/hosts aliases).
    bool is_local(const std::string& host) const;

private:
    bool address_is_local(const in6_addr& a) const;

    std::string hostname_;
    std::vector<in6_addr> addresses_;  // IPv4 stored as v4-mapped
};

}  // namespace strata::job
