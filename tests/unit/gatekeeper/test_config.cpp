#include "gatekeeper/config.hpp"

#include "../security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using strata::gatekeeper::Config;

namespace {

using Strings = std::vector<std::string>;

const std::string kRequired =
    "ca_dir: /etc/grid-security/certificates\n"
    "cert: /etc/grid-security/hostcert.pem\n"
    "key: /etc/grid-security/hostkey.pem\n"
    "gridmap: /etc/grid-security/grid-mapfile\n";

// TMPDIR set (or unset) for one scope.
class TmpdirAs {
public:
    explicit TmpdirAs(const char* value) {
        if (const char* old = std::getenv("TMPDIR")) old_ = old;
        if (value != nullptr)
            ::setenv("TMPDIR", value, 1);
        else
            ::unsetenv("TMPDIR");
    }
    ~TmpdirAs() {
        if (old_)
            ::setenv("TMPDIR", old_->c_str(), 1);
        else
            ::unsetenv("TMPDIR");
    }
    TmpdirAs(const TmpdirAs&) = delete;
    TmpdirAs& operator=(const TmpdirAs&) = delete;

private:
    std::optional<std::string> old_;
};

// The error for `text` read as "/etc/strata/gatekeeper.yaml", which must be refused.
std::string error_of(const std::string& text) {
    const auto c = Config::parse(text, "/etc/strata/gatekeeper.yaml");
    CHECK_FALSE(c);
    return c.error();
}

}  // namespace

TEST_CASE("gatekeeper config: the required keys alone give the defaults", "[gatekeeper-config]") {
    TmpdirAs tmp("/scratch/tmp");
    auto c = Config::parse(kRequired, "/etc/strata/gatekeeper.yaml");
    REQUIRE(c);
    CHECK(c.error().empty());
    CHECK(c->listen.empty());
    CHECK(c->port == 2119);
    CHECK(c->ca_dir == "/etc/grid-security/certificates");
    CHECK(c->cert == "/etc/grid-security/hostcert.pem");
    CHECK(c->key == "/etc/grid-security/hostkey.pem");
    CHECK(c->gridmap == "/etc/grid-security/grid-mapfile");
    CHECK(c->adapters == Strings{"fork"});
    CHECK(c->offers("fork"));
    CHECK_FALSE(c->offers("slurm"));
    CHECK(c->scratch == "/scratch/tmp");
    CHECK(c->state_dir == "/etc/strata/state");
    CHECK(c->max_jobs == 64);
    CHECK(c->max_request_bytes == 1048576);
    CHECK(c->handshake_timeout_s == 10);
}

TEST_CASE("gatekeeper config: scratch defaults to /tmp without TMPDIR", "[gatekeeper-config]") {
    {
        TmpdirAs tmp(nullptr);
        auto c = Config::parse(kRequired, "gk.yaml");
        REQUIRE(c);
        CHECK(c->scratch == "/tmp");
    }
    {
        TmpdirAs tmp("");
        auto c = Config::parse(kRequired, "gk.yaml");
        REQUIRE(c);
        CHECK(c->scratch == "/tmp");
    }
    {
        // A scratch given in the file wins over TMPDIR.
        TmpdirAs tmp("/scratch/tmp");
        auto c = Config::parse(kRequired + "scratch: /var/tmp/strata\n", "gk.yaml");
        REQUIRE(c);
        CHECK(c->scratch == "/var/tmp/strata");
    }
}

TEST_CASE("gatekeeper config: every setting given", "[gatekeeper-config]") {
    auto c = Config::parse(kRequired +
                               "listen: 192.0.2.7\n"
                               "port: 40000\n"
                               "adapters: [slurm, fork]\n"
                               "scratch: /var/tmp/strata\n"
                               "state_dir: /var/lib/strata\n"
                               "limits:\n"
                               "  max_jobs: 100000\n"
                               "  max_jobs_per_user: 3\n"
                               "  max_request_bytes: 67108864\n"
                               "  handshake_timeout: 3600\n",
                           "/etc/strata/gatekeeper.yaml");
    REQUIRE(c);
    CHECK(c->listen == "192.0.2.7");
    CHECK(c->port == 40000);
    CHECK(c->adapters == Strings{"slurm", "fork"});
    CHECK(c->offers("slurm"));
    CHECK(c->offers("fork"));
    CHECK_FALSE(c->offers("pbs"));
    CHECK(c->scratch == "/var/tmp/strata");
    CHECK(c->state_dir == "/var/lib/strata");
    CHECK(c->max_jobs == 100000);
    CHECK(c->max_jobs_per_user == 3);
    CHECK(c->max_request_bytes == 67108864);
    CHECK(c->handshake_timeout_s == 3600);

    auto low = Config::parse(kRequired +
                                 "port: 0\n"
                                 "adapters:\n  - slurm\n"
                                 "limits: {max_jobs: 1, max_request_bytes: 65536, max_stage_bytes: 0, handshake_timeout: 1}\n",
                             "gk.yaml");
    REQUIRE(low);
    CHECK(low->port == 0);
    CHECK(low->adapters == Strings{"slurm"});
    CHECK_FALSE(low->offers("fork"));
    CHECK(low->max_jobs == 1);
    CHECK(low->max_request_bytes == 65536);
    CHECK(low->max_stage_bytes == 0);
    CHECK(low->handshake_timeout_s == 1);

    auto top = Config::parse(kRequired + "port: 65535\nlimits: {}\n", "gk.yaml");
    REQUIRE(top);
    CHECK(top->port == 65535);
    CHECK(top->max_jobs == 64);
    CHECK(top->max_jobs_per_user == 0);  // not limited beyond max_jobs
}

TEST_CASE("gatekeeper config: relative paths are taken from the file's directory", "[gatekeeper-config]") {
    const std::string relative =
        "ca_dir: certificates\n"
        "cert: ../grid/hostcert.pem\n"
        "key: /abs/hostkey.pem\n"
        "gridmap: grid-mapfile\n"
        "scratch: work/tmp\n";
    auto c = Config::parse(relative, "/etc/strata/gatekeeper.yaml");
    REQUIRE(c);
    CHECK(c->ca_dir == "/etc/strata/certificates");
    CHECK(c->cert == "/etc/strata/../grid/hostcert.pem");
    CHECK(c->key == "/abs/hostkey.pem");
    CHECK(c->gridmap == "/etc/strata/grid-mapfile");
    CHECK(c->scratch == "/etc/strata/work/tmp");

    // A file named relative to the working directory: the paths become absolute
    // through it, whatever the working directory is later.
    const std::string cwd = std::filesystem::current_path().string();
    auto sub = Config::parse(relative, "conf/gatekeeper.yaml");
    REQUIRE(sub);
    CHECK(sub->ca_dir == cwd + "/conf/certificates");
    CHECK(sub->scratch == cwd + "/conf/work/tmp");
    CHECK(sub->key == "/abs/hostkey.pem");

    auto here = Config::parse(relative, "gatekeeper.yaml");
    REQUIRE(here);
    CHECK(here->ca_dir == cwd + "/certificates");
    CHECK(here->cert == cwd + "/../grid/hostcert.pem");
    CHECK(here->key == "/abs/hostkey.pem");
    CHECK(here->scratch == cwd + "/work/tmp");
}

TEST_CASE("gatekeeper config: a site's environment additions, in order", "[gatekeeper-config]") {
    auto c = Config::parse(kRequired + "environment:\n  PATH: /opt/site/bin:/usr/bin\n  SITE: north\n",
                           "/etc/strata/gatekeeper.yaml");
    INFO(c.error());
    REQUIRE(c);
    using Env = std::vector<std::pair<std::string, std::string>>;
    CHECK(c->environment == Env{{"PATH", "/opt/site/bin:/usr/bin"}, {"SITE", "north"}});
}

TEST_CASE("gatekeeper config: every refusal names the file, line and column", "[gatekeeper-config]") {
    const std::string file = "/etc/strata/gatekeeper.yaml:";
    SECTION("unknown and duplicate settings") {
        CHECK(error_of(kRequired + "prot: 2119\n") ==
              file + "5:1: unknown setting 'prot'; expected listen, port, ca_dir, cert, key, gridmap, adapters, "
                     "scratch, state_dir, environment or limits");
        CHECK(error_of(kRequired + "environment: [PATH]\n") == file + "5:14: 'environment' must be a map of NAME: value");
        CHECK(error_of(kRequired + "environment: {1X: y}\n") ==
              file + "5:15: '1X' is not an environment variable name");
        CHECK(error_of("port: 1\n" + kRequired + "port: 2\n") == file + "6:1: 'port' is given twice (first at 1:1)");
        CHECK(error_of(kRequired + "cert:   other.pem\n") == file + "5:1: 'cert' is given twice (first at 2:1)");
    }
    SECTION("port") {
        const std::string what = "'port' must be a number from 1 to 65535 (0: any free port)";
        CHECK(error_of(kRequired + "port: 65536\n") == file + "5:7: " + what);
        CHECK(error_of(kRequired + "port: -1\n") == file + "5:7: " + what);
        CHECK(error_of(kRequired + "port:   http\n") == file + "5:9: " + what);
        CHECK(error_of(kRequired + "port: 21.5\n") == file + "5:7: " + what);
        CHECK(error_of(kRequired + "port: [2119]\n") == file + "5:7: " + what);
    }
    SECTION("listen and paths") {
        CHECK(error_of(kRequired + "listen: ''\n") == file + "5:9: 'listen' must be an address");
        CHECK(error_of(kRequired + "listen: [a, b]\n") == file + "5:9: 'listen' must be an address");
        CHECK(error_of("ca_dir: {a: b}\n") == file + "1:9: 'ca_dir' must be a path");
        CHECK(error_of("cert: ''\n") == file + "1:7: 'cert' must be a path");
        CHECK(error_of(kRequired + "scratch: [a]\n") == file + "5:10: 'scratch' must be a path");
    }
    SECTION("adapters") {
        CHECK(error_of(kRequired + "adapters: [fork, pbs]\n") == file + "5:18: unknown adapter 'pbs'; expected fork or slurm");
        CHECK(error_of(kRequired + "adapters:\n  - fork\n  - Slurm\n") ==
              file + "7:5: unknown adapter 'Slurm'; expected fork or slurm");
        CHECK(error_of(kRequired + "adapters: [[fork]]\n") == file + "5:12: unknown adapter '?'; expected fork or slurm");
        CHECK(error_of(kRequired + "adapters: []\n") == file + "5:11: 'adapters' must be a list such as [fork, slurm]");
        CHECK(error_of(kRequired + "adapters: fork\n") == file + "5:11: 'adapters' must be a list such as [fork, slurm]");
    }
    SECTION("limits") {
        CHECK(error_of(kRequired + "limits: 5\n") ==
              file + "5:9: 'limits' must be a map (max_jobs, max_jobs_per_user, max_request_bytes, ...)");
        CHECK(error_of(kRequired + "limits:\n  max_job: 5\n") ==
              file + "6:3: unknown limit 'max_job'; expected max_jobs, max_jobs_per_user, max_request_bytes, "
                     "max_stage_bytes or handshake_timeout");
        CHECK(error_of(kRequired + "limits:\n  max_jobs_per_user: 0\n") ==
              file + "6:22: 'max_jobs_per_user' must be a number from 1 to 100000");
        CHECK(error_of(kRequired + "limits:\n  max_jobs: 8\n  handshake_timeout: 5\n  max_jobs: 9\n") ==
              file + "8:3: 'max_jobs' is given twice (first at 6:3)");
        CHECK(error_of(kRequired + "limits:\n  max_jobs: 0\n") == file + "6:13: 'max_jobs' must be a number from 1 to 100000");
        CHECK(error_of(kRequired + "limits:\n  max_jobs: 100001\n") ==
              file + "6:13: 'max_jobs' must be a number from 1 to 100000");
        CHECK(error_of(kRequired + "limits:\n  max_request_bytes: 65535\n") ==
              file + "6:22: 'max_request_bytes' must be a number from 65536 to 67108864");
        CHECK(error_of(kRequired + "limits:\n  max_request_bytes: 67108865\n") ==
              file + "6:22: 'max_request_bytes' must be a number from 65536 to 67108864");
        CHECK(error_of(kRequired + "limits:\n  max_stage_bytes: -1\n") ==
              file + "6:20: 'max_stage_bytes' must be a number of bytes from 0 to 1099511627776");
        CHECK(error_of(kRequired + "limits:\n  max_stage_bytes: 1099511627777\n") ==
              file + "6:20: 'max_stage_bytes' must be a number of bytes from 0 to 1099511627776");
        CHECK(error_of(kRequired + "limits:\n  handshake_timeout: 0\n") ==
              file + "6:22: 'handshake_timeout' must be seconds from 1 to 3600");
        CHECK(error_of(kRequired + "limits:\n  handshake_timeout: 3601\n") ==
              file + "6:22: 'handshake_timeout' must be seconds from 1 to 3600");
        CHECK(error_of(kRequired + "limits:\n  handshake_timeout: soon\n") ==
              file + "6:22: 'handshake_timeout' must be seconds from 1 to 3600");
    }
    SECTION("not a map of settings") {
        const std::string what = "expected a map of settings (listen, port, ca_dir, cert, key, gridmap, ...)";
        CHECK(error_of("- ca_dir\n- cert\n") == file + "1:1: " + what);
        CHECK(error_of("\n  just text\n") == file + "2:3: " + what);
        CHECK(error_of("") == file + "1:1: " + what);
    }
    SECTION("YAML syntax") {
        CHECK(error_of(kRequired + "adapters: [fork\n") == file + "6:1: end of sequence flow not found");
        CHECK(error_of(kRequired + "port: \"2119") == file + "5:12: illegal EOF in scalar");
        CHECK(error_of("ca_dir: a: b\n") == file + "1:10: illegal map value");
    }
}

TEST_CASE("gatekeeper config: each required key missing", "[gatekeeper-config]") {
    const std::string tail = "' is missing; the gatekeeper needs ca_dir, cert, key and gridmap";
    CHECK(error_of("port: 2119\n") == "/etc/strata/gatekeeper.yaml: 'ca_dir" + tail);
    CHECK(error_of("ca_dir: c\nkey: k\ngridmap: g\n") == "/etc/strata/gatekeeper.yaml: 'cert" + tail);
    CHECK(error_of("ca_dir: c\ncert: c\ngridmap: g\n") == "/etc/strata/gatekeeper.yaml: 'key" + tail);
    CHECK(error_of("ca_dir: c\ncert: c\nkey: k\n") == "/etc/strata/gatekeeper.yaml: 'gridmap" + tail);
    CHECK(error_of("{}") == "/etc/strata/gatekeeper.yaml: 'ca_dir" + tail);
}

TEST_CASE("gatekeeper config: load reads a file and reports one it cannot read", "[gatekeeper-config]") {
    strata::test::ScratchDir dir;
    REQUIRE_FALSE(dir.path().empty());
    const std::string path = (dir.path() / "gatekeeper.yaml").string();
    {
        std::ofstream out(path);
        out << "ca_dir: certificates\ncert: hostcert.pem\nkey: hostkey.pem\ngridmap: grid-mapfile\nport: 0\n";
    }
    auto c = Config::load(path);
    REQUIRE(c);
    CHECK(c->port == 0);
    CHECK(c->cert == (dir.path() / "hostcert.pem").string());

    const std::string missing = (dir.path() / "absent.yaml").string();
    const auto absent = Config::load(missing);
    CHECK_FALSE(absent);
    CHECK(absent.error() == "cannot read configuration file '" + missing + "': No such file or directory");
}
