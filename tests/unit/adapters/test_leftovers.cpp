#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "adapters/leftovers.hpp"

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

void touch(const std::string& path) {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    ::close(fd);
}

}  // namespace

TEST_CASE("shm leftovers: a reaped process's segments go, nothing else does", "[adapters]") {
    char tmpl[] = "/tmp/strata-leftovers-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    const std::string dir = tmpl;
    touch(dir + "/strata-123-0-0123456789abcdef");
    touch(dir + "/strata-123-1-fedcba9876543210");
    touch(dir + "/strata-1234-0-0123456789abcdef");  // another pid that starts alike
    touch(dir + "/strata-12-0-0123456789abcdef");
    REQUIRE(::symlink("/etc/passwd", (dir + "/strata-123-link").c_str()) == 0);  // not a file: stays
    REQUIRE(::mkdir((dir + "/strata-123-dir").c_str(), 0700) == 0);
    bool other_owner = false;
    if (::geteuid() == 0) {
        touch(dir + "/strata-123-9-theirs");
        REQUIRE(::chown((dir + "/strata-123-9-theirs").c_str(), 65534, 65534) == 0);
        other_owner = true;
    }
    CHECK(strata::adapters::shm_leftovers_remove(123, ::geteuid(), dir) == 2);
    CHECK_FALSE(exists(dir + "/strata-123-0-0123456789abcdef"));
    CHECK_FALSE(exists(dir + "/strata-123-1-fedcba9876543210"));
    CHECK(exists(dir + "/strata-1234-0-0123456789abcdef"));
    CHECK(exists(dir + "/strata-12-0-0123456789abcdef"));
    CHECK(exists(dir + "/strata-123-link"));
    CHECK(exists(dir + "/strata-123-dir"));
    if (other_owner) CHECK(exists(dir + "/strata-123-9-theirs"));
    CHECK(strata::adapters::shm_leftovers_remove(123, ::geteuid(), dir + "/missing") == 0);
    REQUIRE(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
}

TEST_CASE("shm leftovers: as root, removed by a child switched to the account, which can touch only its own",
          "[adapters]") {
    if (::geteuid() != 0) return;  // the switch is root's only
    char tmpl[] = "/tmp/strata-leftovers-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    const std::string dir = tmpl;
    REQUIRE(::chmod(dir.c_str(), 01777) == 0);  // as /dev/shm: everyone's, sticky
    touch(dir + "/strata-321-0-theirs");
    REQUIRE(::chown((dir + "/strata-321-0-theirs").c_str(), 65534, 65534) == 0);
    touch(dir + "/strata-321-1-roots");  // named alike, root's: the account cannot remove it
    strata::adapters::RunAs nobody;
    nobody.uid = 65534;
    nobody.gid = 65534;
    strata::adapters::shm_leftovers_remove_as(321, nobody, dir);
    CHECK_FALSE(exists(dir + "/strata-321-0-theirs"));
    CHECK(exists(dir + "/strata-321-1-roots"));
    REQUIRE(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
}
