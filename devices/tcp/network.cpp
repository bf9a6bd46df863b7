#include "devices/tcp/network.hpp"

#include "base/numbers.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>

namespace strata::dev::tcp {

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
    const Interface* hit = nullptr;
    if (auto slash = spec.find('/'); slash != std::string::npos) {
        in_addr net{};
        const base::ParsedInt<int> bits = base::parse_int<int>(std::string_view(spec).substr(slash + 1), 0, 32);
        if (inet_pton(AF_INET, spec.substr(0, slash).c_str(), &net) != 1 || !bits) {
            return base::Error{"STRATA_NETWORK=" + spec +
                               " is neither an interface name nor an IPv4 subnet such as 10.0.0.0/24"};
        }
        std::uint32_t mask = *bits == 0 ? 0 : ~0u << (32 - *bits);
        std::uint32_t want = ntohl(net.s_addr) & mask;
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
        return base::Error{"STRATA_NETWORK=" + spec + " matches no IPv4 interface on this host (interfaces: " +
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
    if (!range) {
        return base::Error{"STRATA_PORT_RANGE=" + spec +
                           " is not LOW:HIGH with 1 <= LOW <= HIGH <= 65535 (e.g. 50000:50100)"};
    }
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
