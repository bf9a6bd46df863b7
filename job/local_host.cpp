#include "job/local_host.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

namespace strata::job {

namespace {

in6_addr v4_mapped(const in_addr& a4) {
    in6_addr a{};
    a.s6_addr[10] = 0xff;
    a.s6_addr[11] = 0xff;
    std::memcpy(&a.s6_addr[12], &a4, 4);
    return a;
}

// A literal IPv4/IPv6 address (an IPv6 zone "%eth0" is ignored), or nullopt.
std::optional<in6_addr> parse_address(const std::string& text) {
    const std::string bare = text.substr(0, text.find('%'));
    in_addr a4{};
    if (::inet_pton(AF_INET, bare.c_str(), &a4) == 1) return v4_mapped(a4);
    in6_addr a6{};
    if (::inet_pton(AF_INET6, bare.c_str(), &a6) == 1) return a6;
    return std::nullopt;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

}  // namespace

LocalHost LocalHost::probe() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
    std::vector<std::string> addresses;
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
        for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
            if (i->ifa_addr == nullptr) continue;
            char text[INET6_ADDRSTRLEN] = {};
            if (i->ifa_addr->sa_family == AF_INET) {
                ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
            } else if (i->ifa_addr->sa_family == AF_INET6) {
                ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, text, sizeof text);
            } else {
                continue;
            }
            addresses.emplace_back(text);
        }
        ::freeifaddrs(list);
    }
    return LocalHost(name, addresses);
}

LocalHost::LocalHost(std::string hostname, const std::vector<std::string>& addresses) : hostname_(std::move(hostname)) {
    for (const std::string& a : addresses)
        if (auto parsed = parse_address(a)) addresses_.push_back(*parsed);
}

std::string LocalHost::short_name() const { return hostname_.substr(0, hostname_.find('.')); }

bool LocalHost::address_is_local(const in6_addr& a) const {
    static const in6_addr loopback6 = IN6ADDR_LOOPBACK_INIT;
    if (std::memcmp(&a, &loopback6, sizeof a) == 0) return true;
    const bool mapped = IN6_IS_ADDR_V4MAPPED(&a);
    if (mapped && a.s6_addr[12] == 127) return true;  // all of 127.0.0.0/8 is this machine
    return std::any_of(addresses_.begin(), addresses_.end(),
                       [&](const in6_addr& mine) { return std::memcmp(&mine, &a, sizeof a) == 0; });
}

bool LocalHost::is_local_literal(const std::string& host) const {
    if (host.empty()) return false;
    if (auto a = parse_address(host)) return address_is_local(*a);
    const std::string h = lower(host);
    if (h == "localhost" || h == "localhost.localdomain") return true;
    if (hostname_.empty()) return false;
    return h == lower(hostname_) || h == lower(short_name());
}

bool LocalHost::is_local(const std::string& host) const {
    if (is_local_literal(host)) return true;
    if (host.empty() || parse_address(host)) return false;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
    bool local = false;
    for (addrinfo* ai = found; ai != nullptr && !local; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET)
            local = address_is_local(v4_mapped(reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr));
        else if (ai->ai_family == AF_INET6)
            local = address_is_local(reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
    }
    ::freeaddrinfo(found);
    return local;
}

}  // namespace strata::job
