// mpirun's name service (launcher/name_service.hpp) on a directory of the
// test's own: publish, lookup and unpublish, what two jobs see of each
// other's names, and the refusals.
#include "launcher/name_service.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

using strata::launcher::NameService;
using strata::wireup::NameOp;
using strata::wireup::Names;
using Status = strata::wireup::NamesReply::Status;

namespace {

struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/strata-names-XXXXXX";
        path = ::mkdtemp(tmpl);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::size_t entries() const {
        std::size_t n = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path)) ++n;
        return n;
    }
};

Names ask(NameOp op, std::string service, std::string port = "") {
    Names m;
    m.op = op;
    m.service = std::move(service);
    m.port = std::move(port);
    return m;
}

}  // namespace

TEST_CASE("name service: a name one job publishes another looks up, until it is unpublished") {
    TempDir dir;
    const std::string names = dir.path + "/names";
    NameService server(names);
    NameService client(names);
    CHECK(client.handle(ask(NameOp::lookup, "ocean")).status == Status::no_name);
    CHECK(server.handle(ask(NameOp::publish, "ocean", "strata-port:1:a")).status == Status::ok);
    // The directory is made private.
    struct stat st {};
    REQUIRE(::stat(names.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    const auto found = client.handle(ask(NameOp::lookup, "ocean"));
    CHECK(found.status == Status::ok);
    CHECK(found.text == "strata-port:1:a");
    // Published twice, by this job or another: refused, the first stays.
    CHECK(server.handle(ask(NameOp::publish, "ocean", "strata-port:1:b")).status == Status::refused);
    const auto twice = client.handle(ask(NameOp::publish, "ocean", "strata-port:1:b"));
    CHECK(twice.status == Status::refused);
    CHECK(twice.text.find("already published") != std::string::npos);
    CHECK(client.handle(ask(NameOp::lookup, "ocean")).text == "strata-port:1:a");
    // Only the job that published a name unpublishes it, with its port name.
    CHECK(client.handle(ask(NameOp::unpublish, "ocean", "strata-port:1:a")).status == Status::refused);
    CHECK(server.handle(ask(NameOp::unpublish, "ocean", "strata-port:1:b")).status == Status::refused);
    CHECK(server.handle(ask(NameOp::unpublish, "ocean", "strata-port:1:a")).status == Status::ok);
    CHECK(client.handle(ask(NameOp::lookup, "ocean")).status == Status::no_name);
    CHECK(server.handle(ask(NameOp::unpublish, "ocean", "strata-port:1:a")).status == Status::refused);
    CHECK(dir.entries() == 1);  // the names directory, empty
}

TEST_CASE("name service: what a job leaves published goes with it; any bytes name a service") {
    TempDir dir;
    NameService client(dir.path);
    const std::string odd("a/../b\0c", 8);
    {
        NameService server(dir.path);
        CHECK(server.handle(ask(NameOp::publish, odd, "p1")).status == Status::ok);
        CHECK(server.handle(ask(NameOp::publish, "x", "p2")).status == Status::ok);
        CHECK(client.handle(ask(NameOp::lookup, odd)).text == "p1");
        CHECK(dir.entries() == 2);
    }
    CHECK(client.handle(ask(NameOp::lookup, odd)).status == Status::no_name);
    CHECK(dir.entries() == 0);
}

TEST_CASE("name service: refusals say why") {
    TempDir dir;
    NameService s(dir.path);
    CHECK(s.handle(ask(NameOp::publish, "", "p")).status == Status::refused);
    CHECK(s.handle(ask(NameOp::publish, std::string(NameService::kMaxService + 1, 's'), "p")).status ==
          Status::refused);
    CHECK(s.handle(ask(NameOp::publish, "s", "")).status == Status::refused);
    CHECK(s.handle(ask(NameOp::publish, "s", std::string(NameService::kMaxPort, 'p'))).status == Status::refused);
    // A directory others can write is not used.
    REQUIRE(::chmod(dir.path.c_str(), 0777) == 0);
    NameService open(dir.path);
    const auto r = open.handle(ask(NameOp::lookup, "s"));
    CHECK(r.status == Status::refused);
    CHECK(r.text.find("STRATA_NAME_DIR") != std::string::npos);
}
