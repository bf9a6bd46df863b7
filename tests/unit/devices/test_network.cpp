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
    std::string err;
    auto c = network_choose("", sample(), err);
    REQUIRE(c);
    CHECK(c->any);
    CHECK(c->publish == std::vector<std::string>{"10.0.0.5", "10.77.1.2", "127.0.0.1"});
}

TEST_CASE("network by interface name or by subnet") {
    std::string err;
    auto by_name = network_choose("eth1", sample(), err);
    REQUIRE(by_name);
    CHECK_FALSE(by_name->any);
    CHECK(by_name->publish == std::vector<std::string>{"10.77.1.2"});
    auto by_subnet = network_choose("10.0.0.0/24", sample(), err);
    REQUIRE(by_subnet);
    CHECK(by_subnet->publish == std::vector<std::string>{"10.0.0.5"});
    auto wide = network_choose("10.77.0.0/16", sample(), err);
    REQUIRE(wide);
    CHECK(wide->publish == std::vector<std::string>{"10.77.1.2"});
}

TEST_CASE("a network that matches nothing names the interfaces there are") {
    std::string err;
    CHECK_FALSE(network_choose("eth9", sample(), err));
    CHECK(err.find("eth9") != std::string::npos);
    CHECK(err.find("eth0 10.0.0.5") != std::string::npos);
    CHECK_FALSE(network_choose("192.168.0.0/16", sample(), err));
    CHECK_FALSE(network_choose("10.0.0.0/40", sample(), err));
    CHECK(err.find("subnet") != std::string::npos);
}

TEST_CASE("port ranges") {
    std::string err;
    auto any = port_range_parse("", err);
    REQUIRE(any);
    CHECK(any->low == 0);
    auto r = port_range_parse("50000:50100", err);
    REQUIRE(r);
    CHECK(r->low == 50000);
    CHECK(r->high == 50100);
    for (const char* bad : {"50000", "50100:50000", "0:10", "1:70000", "a:b", "10:"}) {
        CHECK_FALSE(port_range_parse(bad, err));
        CHECK(err.find("LOW:HIGH") != std::string::npos);
    }
}
