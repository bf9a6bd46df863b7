#include "devices/tcp/network.hpp"

#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "wireup/settings.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>

namespace strata::dev::tcp {

namespace {

const base::KnobString network_knob{wireup::kNetwork.variable, "",
                                    "network for TCP traffic: interface name or IPv4 subnet"};
const base::KnobString port_range_knob{wireup::kPortRange.variable, "", "TCP listening ports LOW:HIGH, for firewalls"};

// Binds `fd` to `addr` at the first free port of `range` from the
// `start`-th on (any port for an empty range); the last errno, 0 when bound.
int port_bind(int fd, sockaddr_in addr, const PortRange& range, int start) {
    if (range.low == 0) {
        addr.sin_port = 0;
        return ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
    }
    const int span = range.high - range.low + 1;
    int last_errno = 0;
    for (int i = 0; i < span; ++i) {
        addr.sin_port = htons(static_cast<std::uint16_t>(range.low + (start + i) % span));
        if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return 0;
        last_errno = errno;
    }
    return last_errno;
}

}  // namespace

base::Result<Listening> listener_open(int start) {
    const auto choice = network_choose(network_knob.get(), interfaces_list());
    if (!choice) return choice.failure();
    const auto range = port_range_parse(port_range_knob.get());
    if (!range) return range.failure();
    Listening l;
    l.fd = base::UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!l.fd) return base::Error{std::string("cannot create a TCP socket: ") + std::strerror(errno)};
    int one = 1;
    setsockopt(l.fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(choice->any ? INADDR_ANY : choice->bind_address);
    const std::string where = choice->any ? "all addresses" : ipv4_text(choice->bind_address);
    if (const int e = port_bind(l.fd.get(), addr, *range, start); e != 0) {
        return base::Error{range->low == 0 ? "cannot bind a TCP listener on " + where + ": " + std::strerror(e)
                                           : "no free port in STRATA_PORT_RANGE=" + port_range_knob.get() + " on " +
                                                 where + " (last error: " + std::strerror(e) + "); widen the range"};
    }
    if (::listen(l.fd.get(), 1024) != 0) {
        return base::Error{std::string("cannot listen on TCP port: ") + std::strerror(errno)};
    }
    socklen_t len = sizeof addr;
    getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    l.port = ntohs(addr.sin_port);
    for (const auto& a : choice->publish) {
        if (!l.address.empty()) l.address += ',';
        l.address += a;
    }
    l.address += ':';
    l.address += std::to_string(l.port);
    return l;
}

std::vector<Interface> interfaces_list() {
    std::vector<Interface> out;
    ifaddrs* all = nullptr;
    if (getifaddrs(&all) != 0) return out;
    for (ifaddrs* i = all; i != nullptr; i = i->ifa_next) {
        if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
        if ((i->ifa_flags & IFF_UP) == 0) continue;
        Interface itf;
        itf.name = i->ifa_name;
        itf.address = ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
        itf.netmask = i->ifa_netmask != nullptr
                          ? ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr)
                          : 0xffffffffu;
        itf.loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
        out.push_back(itf);
    }
    freeifaddrs(all);
    return out;
}

std::string ipv4_text(std::uint32_t host_order) {
    in_addr a{htonl(host_order)};
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &a, buf, sizeof buf);
    return buf;
}

namespace {

std::string interfaces_text(const std::vector<Interface>& ifs) {
    std::string s;
    for (const auto& i : ifs) {
        if (!s.empty()) s += ", ";
        s += i.name + " " + ipv4_text(i.address);
    }
    return s.empty() ? "none" : s;
}

}  // namespace

base::Result<NetworkChoice> network_choose(const std::string& spec, const std::vector<Interface>& ifs) {
    NetworkChoice c;
    if (spec.empty()) {
        std::vector<Interface> sorted = ifs;
        std::stable_partition(sorted.begin(), sorted.end(), [](const Interface& i) { return !i.loopback; });
        for (const auto& i : sorted) c.publish.push_back(ipv4_text(i.address));
        if (c.publish.empty()) c.publish.push_back("127.0.0.1");
        return c;
    }
    const std::optional<wireup::NetworkSpec> parsed = wireup::network_parse(spec);
    if (!parsed) return base::Error{wireup::setting_fault(wireup::kNetwork, spec)};
    const Interface* hit = nullptr;
    if (parsed->interface.empty()) {
        const std::uint32_t mask = parsed->bits == 0 ? 0 : ~0u << (32 - parsed->bits);
        const std::uint32_t want = parsed->subnet & mask;
        for (const auto& i : ifs) {
            if ((i.address & mask) == want) {
                hit = &i;
                break;
            }
        }
    } else {
        for (const auto& i : ifs) {
            if (i.name == spec) {
                hit = &i;
                break;
            }
        }
    }
    if (hit == nullptr) {
        return base::Error{std::string(wireup::kNetwork.variable) + "=" + spec +
                           " matches no IPv4 interface on this host (interfaces: " +
                           interfaces_text(ifs) + "); name one of them or a subnet such as 10.0.0.0/24 (mpirun -net)"};
    }
    c.any = false;
    c.bind_address = hit->address;
    c.publish.push_back(ipv4_text(hit->address));
    return c;
}

base::Result<PortRange> port_range_parse(const std::string& spec) {
    PortRange r;
    if (spec.empty()) return r;
    const std::optional<std::pair<int, int>> range = base::parse_port_range(spec);
    if (!range) return base::Error{wireup::setting_fault(wireup::kPortRange, spec)};
    r.low = range->first;
    r.high = range->second;
    return r;
}

base::Result<CardAddress> card_address_parse(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return base::Error{"expected ADDRESS[,ADDRESS...]:PORT"};
    const std::string port = text.substr(colon + 1);
    const base::ParsedInt<int> parsed = base::parse_int<int>(port, 1, 65535);
    if (!parsed) return base::Error{"the port '" + port + "' is not a number from 1 to 65535"};
    CardAddress out;
    out.port = *parsed;
    std::size_t start = 0;
    while (start < colon) {
        const std::size_t comma = std::min(text.find(',', start), colon);
        if (comma > start) out.addresses.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    if (out.addresses.empty()) return base::Error{"no address before the port"};
    return out;
}

}  // namespace strata::dev::tcp
