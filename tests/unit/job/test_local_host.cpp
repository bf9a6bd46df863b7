#include "job/local_host.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <unistd.h>

using strata::job::LocalHost;

TEST_CASE("local host: names and addresses that mean this machine", "[localhost]") {
    const LocalHost h("node1.example.org", {"10.1.2.3", "fe80::1", "192.168.7.9", "not-an-address"});
    CHECK(h.short_name() == "node1");
    for (const char* yes :
         {"localhost", "LOCALHOST", "localhost.localdomain", "127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1",
          "node1", "NODE1", "node1.example.org", "10.1.2.3", "192.168.7.9", "fe80::1", "fe80::1%eth0"}) {
        INFO(yes);
        CHECK(h.is_local_literal(yes));
    }
    for (const char* no : {"", "node2", "node1.other.org", "node", "10.1.2.4", "8.8.8.8", "::2", "128.0.0.1"}) {
        INFO(no);
        CHECK_FALSE(h.is_local_literal(no));
    }
}

TEST_CASE("local host: a short hostname also matches", "[localhost]") {
    const LocalHost h("node7", {});
    CHECK(h.short_name() == "node7");
    CHECK(h.is_local_literal("node7"));
    CHECK_FALSE(h.is_local_literal("node70"));
}

TEST_CASE("local host: probe() knows this machine", "[localhost]") {
    const LocalHost h = LocalHost::probe();
    char name[256] = {};
    REQUIRE(::gethostname(name, sizeof name - 1) == 0);
    CHECK(h.hostname() == name);
    CHECK(h.is_local(name));
    CHECK(h.is_local(h.short_name()));
    CHECK(h.is_local("localhost"));
    CHECK(h.is_local("127.0.0.1"));
    // Every interface address counts.
    ifaddrs* list = nullptr;
    REQUIRE(::getifaddrs(&list) == 0);
    for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
        if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
        INFO(text);
        CHECK(h.is_local(text));
    }
    ::freeifaddrs(list);
    // TEST-NET-1 (RFC 5737) is never assigned to a real host.
    CHECK_FALSE(h.is_local("192.0.2.1"));
}
