#include "job/contact.hpp"

#include <catch2/catch.hpp>

using namespace strata::job;

namespace {

Contact parse(const std::string& text) {
    auto c = contact_parse(text);
    INFO(text << ": " << c.error());
    REQUIRE(c);
    return *c;
}

// "OFFSET: why"
std::string error_of(const std::string& text) {
    auto c = contact_parse(text, [](std::size_t offset, const std::string& why) {
        return strata::base::Error{std::to_string(offset) + ": " + why};
    });
    CHECK_FALSE(c);
    return c.error();
}

}  // namespace

TEST_CASE("contact: every accepted form", "[contact]") {
    CHECK(parse("anl.example.org") == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(parse("anl.example.org:3000") == Contact{"anl.example.org", 3000, AdapterKind::fork});
    CHECK(parse("anl.example.org/fork") == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(parse("anl.example.org/jobmanager-fork") == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(parse("anl.example.org/jobmanager") == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(parse("anl.example.org:2119/fork") == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(parse("node7/slurm") == Contact{"node7", 2119, AdapterKind::slurm});
    CHECK(parse("node7:2120/jobmanager-slurm") == Contact{"node7", 2120, AdapterKind::slurm});
    CHECK(parse("10.0.0.1:65535/slurm") == Contact{"10.0.0.1", 65535, AdapterKind::slurm});
    CHECK(parse("[::1]") == Contact{"::1", 2119, AdapterKind::fork});
    CHECK(parse("[fe80::1]:2200/jobmanager-slurm") == Contact{"fe80::1", 2200, AdapterKind::slurm});
}

TEST_CASE("contact: text() is the classic form and parses back", "[contact]") {
    for (const char* t : {"anl.example.org", "node7:2120/slurm", "[::1]:9/fork", "localhost/fork"}) {
        const Contact c = parse(t);
        CHECK(parse(c.text()) == c);
        CHECK(parse(c.text()).port_given == c.port_given);
    }
    CHECK(parse("node7/slurm").text() == "node7/jobmanager-slurm");
    CHECK(parse("node7:2119/slurm").text() == "node7:2119/jobmanager-slurm");
    CHECK_FALSE(parse("node7/slurm").port_given);
    CHECK(parse("node7:2119").port_given);
    CHECK(parse("[::1]:9").text() == "[::1]:9/jobmanager-fork");
}

TEST_CASE("contact: bad ports, unknown adapters and bad hosts say where and why", "[contact]") {
    CHECK(error_of("anl.example.org:99999/fork") ==
          "16: bad port '99999' in contact 'anl.example.org:99999/fork'; expected a number from 1 to 65535");
    CHECK(error_of("h:0") == "2: bad port '0' in contact 'h:0'; expected a number from 1 to 65535");
    CHECK(error_of("h:") == "2: bad port '' in contact 'h:'; expected a number from 1 to 65535");
    CHECK(error_of("h:x1/fork") == "2: bad port 'x1' in contact 'h:x1/fork'; expected a number from 1 to 65535");
    CHECK(error_of("h:-5") == "2: bad port '-5' in contact 'h:-5'; expected a number from 1 to 65535");
    CHECK(error_of("anl.example.org/jobmanager-pbs") ==
          "16: unknown adapter 'jobmanager-pbs' in contact 'anl.example.org/jobmanager-pbs'; expected fork, slurm, "
          "jobmanager-fork or jobmanager-slurm, or ssh[+adapter] or srun");
    CHECK(error_of("h:2119/") ==
          "7: unknown adapter '' in contact 'h:2119/'; expected fork, slurm, jobmanager-fork or jobmanager-slurm, or ssh[+adapter] or srun");
    CHECK(error_of("") == "0: empty contact; expected host[:port][/adapter], [user@]host[:port]/ssh[+adapter] or node/srun");
    CHECK(error_of("/fork") == "0: missing host in contact '/fork'; expected host[:port][/adapter], [user@]host[:port]/ssh[+adapter] or node/srun");
    CHECK(error_of("ho$t/fork") == "0: 'ho$t' is not a valid host name in contact 'ho$t/fork'");
    CHECK(error_of("[::1") == "0: '[::1' has no closing ']'; expected '[address]' around an IPv6 host");
    CHECK(error_of("[node]:2") == "1: 'node' is not an IPv6 address");
    CHECK(error_of("[::1]x") == "5: unexpected 'x' in contact '[::1]x'; expected host[:port][/adapter], [user@]host[:port]/ssh[+adapter] or node/srun");
}

TEST_CASE("contact: ssh logins, with or without user, port and adapter", "[contact]") {
    Contact c = parse("jane@login.example.org:2222/ssh+slurm");
    CHECK(c.transport == Transport::ssh);
    CHECK(c.user == "jane");
    CHECK(c.host == "login.example.org");
    CHECK(c.port == 2222);
    CHECK(c.port_given);
    CHECK(c.adapter == AdapterKind::slurm);
    c = parse("login/ssh");
    CHECK(c.transport == Transport::ssh);
    CHECK(c.user.empty());
    CHECK_FALSE(c.port_given);
    CHECK(c.port == 0);  // ssh's configuration decides
    CHECK(c.adapter == AdapterKind::fork);
    CHECK(parse("login/ssh+fork") == c);
    CHECK(parse("a.b@[::1]/ssh").host == "::1");
    // text() names the adapter and parses back.
    for (const char* t : {"login/ssh", "jane@login:22/ssh+slurm", "x_y@[fe80::1]:9/ssh+fork"}) {
        const Contact p = parse(t);
        CHECK(parse(p.text()) == p);
        CHECK(parse(p.text()).port_given == p.port_given);
    }
    CHECK(parse("login/ssh").text() == "login/ssh+fork");
    CHECK(parse("jane@login:22/ssh+slurm").text() == "jane@login:22/ssh+slurm");
    // A gatekeeper contact and an ssh one to the same host differ.
    CHECK_FALSE(parse("login/fork") == parse("login/ssh"));
}

TEST_CASE("contact: a bad ssh contact says where and why", "[contact]") {
    CHECK(error_of("-oProxyCommand=x@h/ssh") ==
          "0: '-oProxyCommand=x' is not a valid user name in contact '-oProxyCommand=x@h/ssh'");
    CHECK(error_of("@h/ssh") == "0: '' is not a valid user name in contact '@h/ssh'");
    CHECK(error_of("jane@h/fork") ==
          "0: 'jane@' in contact 'jane@h/fork': a user name belongs to ssh contacts only (a gatekeeper maps you "
          "to an account; its subjob key is 'account')");
    CHECK(error_of("h/ssh+pbs") == "6: unknown adapter 'pbs' in contact 'h/ssh+pbs'; expected ssh, ssh+fork or ssh+slurm");
    CHECK(error_of("jane@-h/ssh").find("5: '-h' is not a valid host name") == 0);
    CHECK(error_of("h/sshx").find("unknown adapter 'sshx'") != std::string::npos);
}

TEST_CASE("contact: a node of the Slurm allocation", "[contact]") {
    const Contact c = parse("n7/srun");
    CHECK(c.transport == Transport::srun);
    CHECK(c.host == "n7");
    CHECK(c.text() == "n7/srun");
    CHECK(parse(c.text()) == c);
    CHECK(error_of("n7:22/srun") ==
          "0: 'n7:22/srun': a node of the Slurm allocation takes no user and no port; expected node/srun");
    CHECK(error_of("u@n7/srun").find("takes no user and no port") != std::string::npos);
}
