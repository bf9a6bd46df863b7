#include <catch2/catch.hpp>

#include "devices/tcp/network.hpp"

using namespace strata::dev::tcp;

namespace {
std::vector<Interface> sample() {
    return {
        {"lo", 0x7f000001, 0xff000000, true},
        {"eth0", 0x0a000005, 0xffffff00, false},   // 10.0.0.5/24
        {"eth1", 0x0a4d0102, 0xffff0000, false},   // 10.77.1.2/16
    };
}
}  // namespace

TEST_CASE("no network chosen: listen everywhere, publish loopback last") {
    auto c = network_choose("", sample());
    REQUIRE(c);
    CHECK(c->any);
    CHECK(c->publish == std::vector<std::string>{"10.0.0.5", "10.77.1.2", "127.0.0.1"});
}

TEST_CASE("network by interface name or by subnet") {
    auto by_name = network_choose("eth1", sample());
    REQUIRE(by_name);
    CHECK_FALSE(by_name->any);
    CHECK(by_name->publish == std::vector<std::string>{"10.77.1.2"});
    auto by_subnet = network_choose("10.0.0.0/24", sample());
    REQUIRE(by_subnet);
    CHECK(by_subnet->publish == std::vector<std::string>{"10.0.0.5"});
    auto wide = network_choose("10.77.0.0/16", sample());
    REQUIRE(wide);
    CHECK(wide->publish == std::vector<std::string>{"10.77.1.2"});
}

TEST_CASE("a network that matches nothing names the interfaces there are") {
    const auto eth9 = network_choose("eth9", sample());
    CHECK_FALSE(eth9);
    CHECK(eth9.error().find("eth9") != std::string::npos);
    CHECK(eth9.error().find("eth0 10.0.0.5") != std::string::npos);
    CHECK_FALSE(network_choose("192.168.0.0/16", sample()));
    const auto bits = network_choose("10.0.0.0/40", sample());
    CHECK_FALSE(bits);
    CHECK(bits.error().find("subnet") != std::string::npos);
}

TEST_CASE("port ranges") {
    auto any = port_range_parse("");
    REQUIRE(any);
    CHECK(any->low == 0);
    auto r = port_range_parse("50000:50100");
    REQUIRE(r);
    CHECK(r->low == 50000);
    CHECK(r->high == 50100);
    for (const char* bad : {"50000", "50100:50000", "0:10", "1:70000", "a:b", "10:"}) {
        const auto r = port_range_parse(bad);
        CHECK_FALSE(r);
        CHECK(r.error().find("STRATA_PORT_RANGE='" + std::string(bad) + "': expected LO:HI") == 0);
    }
}

TEST_CASE("a card's TCP address: addresses, preferred first, and a port") {
    auto one = card_address_parse("10.0.0.5:40123");
    REQUIRE(one);
    CHECK(one->addresses == std::vector<std::string>{"10.0.0.5"});
    CHECK(one->port == 40123);
    auto two = card_address_parse("10.0.0.5,127.0.0.1:1");
    REQUIRE(two);
    CHECK(two->addresses == std::vector<std::string>{"10.0.0.5", "127.0.0.1"});
    CHECK(two->port == 1);
    CHECK(card_address_parse("10.0.0.5").error() == "expected ADDRESS[,ADDRESS...]:PORT");
    CHECK(card_address_parse(":40123").error() == "no address before the port");
    CHECK(card_address_parse(",:40123").error() == "no address before the port");
    // atoi read these as 0, 12 and whatever overflow gave, and the rank dialled that.
    for (const char* port : {"", "x", "12abc", "0", "65536", "-1", "+80", " 80", "99999999999999999999"}) {
        INFO(port);
        CHECK(card_address_parse(std::string("10.0.0.5:") + port).error() ==
              std::string("the port '") + port + "' is not a number from 1 to 65535");
    }
}
