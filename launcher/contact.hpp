// A gatekeeper contact: where a subjob is submitted and which local scheduler
// starts it there.
//
//   host                     port 2119, fork adapter
//   host:port                fork adapter
//   host[:port]/fork         also /jobmanager-fork, /jobmanager (Globus' default service)
//   host[:port]/slurm        also /jobmanager-slurm
//   [v6-address][:port][/adapter]
//
// Parsing is pure: no name resolution.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace strata::launcher {

enum class AdapterKind { fork, slurm };

struct Contact {
    static constexpr int kDefaultPort = 2119;

    std::string host;
    int port = kDefaultPort;
    AdapterKind adapter = AdapterKind::fork;

    // The classic form, "host:port/jobmanager-fork"; contact_parse accepts it.
    std::string text() const;
    bool operator==(const Contact&) const = default;
};

const char* adapter_name(AdapterKind kind);  // "fork", "slurm"

// On error returns nullopt, sets `why` to what is wrong and `offset` to where
// in `text` it starts (for a column in messages).
std::optional<Contact> contact_parse(const std::string& text, std::string& why, std::size_t& offset);

// Host names as machine files accept them (letters, digits, '-', '.', '_').
bool host_name_valid(const std::string& host);

}  // namespace strata::launcher
