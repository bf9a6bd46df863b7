#include "job/contact.hpp"

#include <arpa/inet.h>

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

std::string Contact::text() const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    const bool show_port = port_given || port != kDefaultPort;
    return h + (show_port ? ':' + std::to_string(port) : std::string()) + "/jobmanager-" + adapter_name(adapter);
}

base::Result<Contact> contact_parse(const std::string& text) {
    return contact_parse(text, [](std::size_t, const std::string& what) { return base::Error{what}; });
}

base::Result<Contact> contact_parse(const std::string& text, const ContactErrorAt& fail) {
    Contact c;
    std::size_t i = 0;
    if (text.empty()) return fail(0, "empty contact; expected host[:port][/adapter]");
    if (text[0] == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string::npos)
            return fail(0, "'" + text + "' has no closing ']'; expected '[address]' around an IPv6 host");
        c.host = text.substr(1, close - 1);
        if (!ipv6_literal(c.host)) return fail(1, "'" + c.host + "' is not an IPv6 address");
        i = close + 1;
    } else {
        i = text.find_first_of(":/");
        c.host = text.substr(0, i);
        if (i == std::string::npos) i = text.size();
        if (c.host.empty()) return fail(0, "missing host in contact '" + text + "'; expected host[:port][/adapter]");
        if (!host_name_valid(c.host))
            return fail(0, "'" + c.host + "' is not a valid host name in contact '" + text + "'");
    }
    if (i < text.size() && text[i] == ':') {
        const std::size_t begin = i + 1;
        const std::size_t end = text.find('/', begin);
        const std::string port = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        bool digits = !port.empty() && port.size() <= 5;
        for (unsigned char ch : port) digits = digits && std::isdigit(ch);
        const long value = digits ? std::stol(port) : 0;
        if (value < 1 || value > 65535)
            return fail(begin, "bad port '" + port + "' in contact '" + text + "'; expected a number from 1 to 65535");
        c.port = static_cast<int>(value);
        c.port_given = true;
        i = end == std::string::npos ? text.size() : end;
    }
    if (i < text.size()) {
        if (text[i] != '/')
            return fail(i, "unexpected '" + text.substr(i) + "' in contact '" + text + "'; expected host[:port][/adapter]");
        const std::string service = text.substr(i + 1);
        const AdapterInfo* adapter = adapter_find_service(service);
        if (adapter == nullptr)
            return fail(i + 1, "unknown adapter '" + service + "' in contact '" + text + "'; expected " +
                                   adapter_names_text(true));
        c.adapter = adapter->kind;
    }
    return c;
}

}  // namespace strata::job
