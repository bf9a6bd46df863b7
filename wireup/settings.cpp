#include "wireup/settings.hpp"

#include "base/numbers.hpp"
#include "wireup/binding.hpp"
#include "wireup/emulation.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace strata::wireup {

std::optional<NetworkSpec> network_parse(std::string_view text) {
    NetworkSpec spec;
    const std::size_t slash = text.find('/');
    if (slash != std::string_view::npos) {
        in_addr address{};
        const base::ParsedInt<int> bits = base::parse_int<int>(text.substr(slash + 1), 0, 32);
        if (::inet_pton(AF_INET, std::string(text.substr(0, slash)).c_str(), &address) != 1 || !bits)
            return std::nullopt;
        spec.subnet = ntohl(address.s_addr);
        spec.bits = *bits;
        return spec;
    }
    const bool name = std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.' || c == ':';
    });
    if (text.empty() || text.size() > 15 || !name) return std::nullopt;
    spec.interface = text;
    return spec;
}

namespace fault {

namespace {
std::string unless(bool valid, const Setting& s) { return valid ? std::string() : "expected " + std::string(s.expects); }
}  // namespace

std::string network(std::string_view text) { return unless(network_parse(text).has_value(), kNetwork); }

std::string port_range(std::string_view text) { return unless(base::parse_port_range(text).has_value(), kPortRange); }

std::string method_list(std::string_view text) {
    const bool commas =
        text.empty() || text.front() == ',' || text.back() == ',' || text.find(",,") != std::string_view::npos;
    const bool letters =
        std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::islower(c) != 0 || c == ','; });
    return unless(!commas && letters, kExcludeMethods);
}

std::string bind_to(std::string_view text) { return unless(bind_to_parse(std::string(text)).ok(), kBindTo); }

std::string integer(std::string_view text) { return unless(base::parse_int<std::int64_t>(text).ok(), kVerbose); }

std::string emulation(std::string_view text) {
    const base::Result<Emulation> e = emulation_parse(std::string(text));
    return e ? std::string() : e.error();
}

std::string streams(std::string_view text) { return unless(streams_check(std::string(text)).ok(), kTcpStreams); }

std::string data_tls(std::string_view text) { return unless(text == "off" || text == "wan" || text == "all", kDataTls); }

}  // namespace fault

namespace {

constexpr std::array<const Setting*, 9> kAll{&kNetwork,  &kPortRange, &kExcludeMethods, &kBindTo,    &kVerbose,
                                              &kCommFile, &kEmulation, &kTcpStreams,     &kDataTls};

// "-net IFACE|CIDR", "-v (=1)", or "-".
std::string flag_column(const Setting& s) {
    if (s.flag == nullptr) return "-";
    std::string out = s.flag;
    if (s.value_name != nullptr) out.append(" ").append(s.value_name);
    return out;
}

std::string key_column(const Setting& s) { return s.job_key == nullptr ? "-" : s.job_key; }

std::string variable_column(const Setting& s) {
    std::string out = s.variable;
    const char* value = s.flag_value != nullptr ? s.flag_value : s.job_value;
    if (value != nullptr) out.append("=").append(value);
    return out;
}

}  // namespace

std::span<const Setting* const> settings_all() { return kAll; }

const Setting* setting_find(std::string_view variable) {
    for (const Setting* s : kAll)
        if (variable == s->variable) return s;
    return nullptr;
}

bool setting_valid(const Setting& s, std::string_view text) { return s.fault == nullptr || s.fault(text).empty(); }

std::string setting_fault(const Setting& s, std::string_view value) {
    if (s.fault == nullptr) return {};
    const std::string reason = s.fault(value);
    if (reason.empty()) return {};
    std::string out = s.variable;
    out.append("='").append(value).append("': ").append(reason);
    return out;
}

std::string setting_fault(std::string_view variable, std::string_view value) {
    const Setting* s = setting_find(variable);
    return s == nullptr || value.empty() ? std::string() : setting_fault(*s, value);
}

std::string settings_table(std::string_view indent) {
    std::size_t flag_width = std::string_view("mpirun option").size();
    std::size_t key_width = std::string_view("job file key").size();
    for (const Setting* s : kAll) {
        flag_width = std::max(flag_width, flag_column(*s).size());
        key_width = std::max(key_width, key_column(*s).size());
    }
    const auto line = [&](const std::string& flag, const std::string& key, const std::string& variable) {
        std::string out(indent);
        out += flag;
        out.append(flag_width + 2 - flag.size(), ' ');
        out += key;
        out.append(key_width + 2 - key.size(), ' ');
        out += variable;
        out += '\n';
        return out;
    };
    std::string out = line("mpirun option", "job file key", "environment variable");
    for (const Setting* s : kAll) out += line(flag_column(*s), key_column(*s), variable_column(*s));
    return out;
}

}  // namespace strata::wireup
