#include "wireup/settings.hpp"

#include "wireup/binding.hpp"
#include "wireup/emulation.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <sstream>

using namespace strata::wireup;

TEST_CASE("settings: every row names a variable and is set by something", "[settings]") {
    std::set<std::string> variables;
    for (const Setting* s : settings_all()) {
        INFO(s->variable);
        CHECK(std::string(s->variable).starts_with("STRATA_"));
        CHECK(variables.insert(s->variable).second);
        CHECK((s->flag != nullptr || s->job_key != nullptr));
        CHECK(s->expects != nullptr);
        // An option without a value sets the variable to a value of its own.
        if (s->flag != nullptr && s->value_name == nullptr) CHECK(s->flag_value != nullptr);
        if (s->flag_value != nullptr) CHECK(setting_valid(*s, s->flag_value));
        if (s->job_value != nullptr) CHECK(setting_valid(*s, s->job_value));
        CHECK(setting_find(s->variable) == s);
    }
    CHECK(setting_find("STRATA_SKIP_POLL") == nullptr);
    CHECK(setting_find("") == nullptr);
}

TEST_CASE("settings: each row judges values as the library's parser does", "[settings]") {
    // STRATA_NETWORK: an interface name or an IPv4 subnet, nothing else.
    for (const char* ok : {"eth0", "eno1.100", "ib0:1", "10.0.0.0/8", "0.0.0.0/0", "192.168.1.0/32"}) {
        INFO(ok);
        CHECK(setting_valid(kNetwork, ok));
    }
    for (const char* bad : {"", "10.0.0.0/33", "10.0.0.0/", "fd00::/8", "eth0/8", "sixteen-chars-xx", "a b"}) {
        INFO(bad);
        CHECK_FALSE(setting_valid(kNetwork, bad));
    }
    const std::optional<NetworkSpec> subnet = network_parse("10.1.2.0/24");
    REQUIRE(subnet);
    CHECK((subnet->interface.empty() && subnet->subnet == 0x0a010200u && subnet->bits == 24));
    CHECK(network_parse("eth1")->interface == "eth1");

    CHECK(setting_valid(kPortRange, "50000:50100"));
    CHECK_FALSE(setting_valid(kPortRange, "50100:50000"));
    CHECK(setting_valid(kExcludeMethods, "shm,ofi"));
    for (const char* bad : {"", ",shm", "shm,", "shm,,tcp", "SHM"}) CHECK_FALSE(setting_valid(kExcludeMethods, bad));
    for (const char* mode : {"core", "socket", "none"}) {
        CHECK(setting_valid(kBindTo, mode));
        CHECK(bind_to_parse(mode).ok());
    }
    CHECK_FALSE(setting_valid(kBindTo, "cores"));
    CHECK(setting_valid(kTcpStreams, "1"));
    CHECK(setting_valid(kTcpStreams, std::to_string(kStreamsMax)));
    CHECK_FALSE(setting_valid(kTcpStreams, std::to_string(kStreamsMax + 1)));
    CHECK_FALSE(setting_valid(kTcpStreams, "0"));
    for (int n : {0, 1, kStreamsMax, kStreamsMax + 1})
        CHECK(setting_valid(kTcpStreams, std::to_string(n)) == streams_check(std::to_string(n)).ok());
    CHECK(setting_valid(kDataTls, "wan"));
    CHECK_FALSE(setting_valid(kDataTls, "tls"));
    CHECK(setting_valid(kEmulation, "wan:latency_ms=10"));
    CHECK_FALSE(setting_valid(kEmulation, "wan:latency=10"));
    CHECK(setting_valid(kVerbose, "1"));
    CHECK_FALSE(setting_valid(kVerbose, "yes"));
    CHECK(setting_valid(kCommFile, "anything"));
}

TEST_CASE("settings: the table maps option, job file key and variable", "[settings]") {
    const std::string table = settings_table("  ");
    std::istringstream in(table);
    std::string line;
    std::getline(in, line);
    CHECK(line.starts_with("  mpirun option"));
    const std::size_t key_at = line.find("job file key");
    const std::size_t variable_at = line.find("environment variable");
    REQUIRE((key_at != std::string::npos && variable_at != std::string::npos));
    int rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        INFO(line);
        // Columns line up under the header.
        CHECK(line.size() > variable_at);
        CHECK(line[key_at - 1] == ' ');
        CHECK(line.substr(variable_at).starts_with("STRATA_"));
    }
    CHECK(rows == static_cast<int>(settings_all().size()));
    CHECK(table.find("  -net IFACE|CIDR ") != std::string::npos);
    CHECK(table.find(" bind_to ") != std::string::npos);
    CHECK(table.find("STRATA_VERBOSE=1\n") != std::string::npos);
    CHECK(table.find("security: {data: tls}  STRATA_DATA_TLS=wan\n") != std::string::npos);
}

TEST_CASE("settings: a refusal names the variable, the value and the reason", "[settings]") {
    CHECK(setting_fault(kDataTls, "tls") == "STRATA_DATA_TLS='tls': expected off, wan or all");
    CHECK(setting_fault(kDataTls, "wan").empty());
    // The parser's own account where it has one.
    CHECK(setting_fault(kEmulation, "wide:latency_ms=3").starts_with("STRATA_EMULATION='wide:latency_ms=3': unknown link"));
    // Given by name: only the table's variables, and an empty value is unset.
    CHECK(setting_fault("STRATA_BIND_TO", "l3") == "STRATA_BIND_TO='l3': expected core, socket or none");
    CHECK(setting_fault("STRATA_BIND_TO", "").empty());
    CHECK(setting_fault("STRATA_SKIP_POLL", "x").empty());
    CHECK(setting_fault(kCommFile, "").empty());
}
