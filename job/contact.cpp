#include "job/contact.hpp"

#include "base/numbers.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace strata::job {

namespace {

bool ipv6_literal(const std::string& h) {
    in6_addr a{};
    const std::string bare = h.substr(0, h.find('%'));
    return ::inet_pton(AF_INET6, bare.c_str(), &a) == 1;
}

}  // namespace

bool host_name_valid(const std::string& h) {
    if (h.empty() || h.size() > 253) return false;
    for (unsigned char c : h)
        if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_')) return false;
    return h.front() != '-' && h.front() != '.';
}

bool user_name_valid(const std::string& u) {
    if (u.empty() || u.size() > 64 || u.front() == '-') return false;
    for (unsigned char c : u)
        if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_')) return false;
    return true;
}

std::string Contact::text() const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (transport == Transport::srun) return h + "/srun";
    if (transport == Transport::ssh) {
        return (user.empty() ? std::string() : user + "@") + h + (port_given ? ':' + std::to_string(port) : std::string()) +
               "/ssh+" + adapter_name(adapter);
    }
    const bool show_port = port_given || port != kDefaultPort;
    return h + (show_port ? ':' + std::to_string(port) : std::string()) + "/jobmanager-" + adapter_name(adapter);
}

base::Result<Contact> contact_parse(const std::string& text) {
    return contact_parse(text, [](std::size_t, const std::string& what) { return base::Error{what}; });
}

namespace {

constexpr const char* kForms =
    "expected host[:port][/adapter], [user@]host[:port]/ssh[+adapter] or node/srun";

// The host at `i` (a name, or an IPv6 address in brackets); `i` moves past it.
base::Status host_parse(const std::string& text, std::size_t& i, Contact& c, const ContactErrorAt& fail) {
    if (i < text.size() && text[i] == '[') {
        const std::size_t close = text.find(']', i);
        if (close == std::string::npos)
            return fail(i, "'" + text + "' has no closing ']'; expected '[address]' around an IPv6 host");
        c.host = text.substr(i + 1, close - i - 1);
        if (!ipv6_literal(c.host)) return fail(i + 1, "'" + c.host + "' is not an IPv6 address");
        i = close + 1;
        return {};
    }
    const std::size_t begin = i;
    i = std::min(text.find_first_of(":/", begin), text.size());
    c.host = text.substr(begin, i - begin);
    if (c.host.empty()) return fail(begin, "missing host in contact '" + text + "'; " + kForms);
    if (!host_name_valid(c.host)) return fail(begin, "'" + c.host + "' is not a valid host name in contact '" + text + "'");
    return {};
}

// ":port" at `i`, if there; `i` moves past it.
base::Status port_parse(const std::string& text, std::size_t& i, Contact& c, const ContactErrorAt& fail) {
    if (i >= text.size() || text[i] != ':') return {};
    const std::size_t begin = i + 1;
    const std::size_t end = std::min(text.find('/', begin), text.size());
    const std::string port = text.substr(begin, end - begin);
    const base::ParsedInt<int> value = base::parse_int<int>(port, 1, 65535);
    if (!value)
        return fail(begin, "bad port '" + port + "' in contact '" + text + "'; expected a number from 1 to 65535");
    c.port = *value;
    c.port_given = true;
    i = end;
    return {};
}

// "/service" at `i`, if there: the adapter, and for "ssh[+adapter]" the transport.
base::Status service_parse(const std::string& text, std::size_t i, Contact& c, const ContactErrorAt& fail) {
    if (i >= text.size()) return {};
    if (text[i] != '/') return fail(i, "unexpected '" + text.substr(i) + "' in contact '" + text + "'; " + kForms);
    const std::string service = text.substr(i + 1);
    if (service == "srun") {
        c.transport = Transport::srun;
        return {};
    }
    if (service == "ssh" || service.rfind("ssh+", 0) == 0) {
        c.transport = Transport::ssh;
        const AdapterInfo* adapter = service == "ssh" ? &adapter_info(AdapterKind::fork) : adapter_find(service.substr(4));
        if (adapter == nullptr)
            return fail(i + 5, "unknown adapter '" + service.substr(4) + "' in contact '" + text + "'; expected ssh, " +
                                   "ssh+fork or ssh+slurm");
        c.adapter = adapter->kind;
        return {};
    }
    const AdapterInfo* adapter = adapter_find_service(service);
    if (adapter == nullptr)
        return fail(i + 1, "unknown adapter '" + service + "' in contact '" + text + "'; expected " +
                               adapter_names_text(true) + ", or ssh[+adapter] or srun");
    c.adapter = adapter->kind;
    return {};
}

}  // namespace

base::Result<Contact> contact_parse(const std::string& text, const ContactErrorAt& fail) {
    Contact c;
    if (text.empty()) return fail(0, std::string("empty contact; ") + kForms);
    std::size_t i = 0;
    const std::size_t at = text.find('@');
    if (at != std::string::npos && at < text.find('/')) {
        c.user = text.substr(0, at);
        if (!user_name_valid(c.user)) return fail(0, "'" + c.user + "' is not a valid user name in contact '" + text + "'");
        i = at + 1;
    }
    if (base::Status s = host_parse(text, i, c, fail); !s) return s.failure();
    if (base::Status s = port_parse(text, i, c, fail); !s) return s.failure();
    if (base::Status s = service_parse(text, i, c, fail); !s) return s.failure();
    if (c.transport != Transport::gatekeeper && !c.port_given) c.port = 0;
    if (c.transport == Transport::srun && (c.port_given || !c.user.empty()))
        return fail(0, "'" + text + "': a node of the Slurm allocation takes no user and no port; expected node/srun");
    if (!c.user.empty() && c.transport != Transport::ssh)
        return fail(0, "'" + c.user + "@' in contact '" + text + "': a user name belongs to ssh contacts only (" +
                           "a gatekeeper maps you to an account; its subjob key is 'account')");
    return c;
}

}  // namespace strata::job
