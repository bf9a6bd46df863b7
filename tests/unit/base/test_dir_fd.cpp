// DirFd: privileged file work that a planted symlink, hard link, FIFO or a
// renamed directory cannot redirect. The race cases run an attacker thread
// that keeps swapping the names DirFd uses while it works, and check that
// nothing outside the directory ever changes and nothing of it is read.
#include <catch2/catch.hpp>

#include "base/dir_fd.hpp"
#include "../security/scratch_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using strata::base::DirFd;

namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

DirFd made(const std::filesystem::path& parent) {
    strata::base::Result<DirFd> d = DirFd::make(parent.string(), "t-");
    INFO(d.error());
    REQUIRE(d);
    return std::move(*d);
}

}  // namespace

TEST_CASE("a DirFd is a fresh private directory, and unsafe parents are refused") {
    strata::test::ScratchDir tmp;
    DirFd d = made(tmp.path());
    struct stat st;
    REQUIRE(::stat(d.path().c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(st.st_uid == ::geteuid());

    const auto open_parent = tmp.path() / "open";
    std::filesystem::create_directory(open_parent);
    ::chmod(open_parent.c_str(), 0777);
    const auto open_made = DirFd::make(open_parent.string(), "t-");
    CHECK_FALSE(open_made);
    CHECK(open_made.error().find("other accounts can write it and it is not sticky") != std::string::npos);
    ::chmod(open_parent.c_str(), 01777);
    CHECK(DirFd::make(open_parent.string(), "t-"));
    const auto missing = DirFd::make((tmp.path() / "missing").string(), "t-");
    CHECK_FALSE(missing);
    CHECK(missing.error() ==
          "cannot make a directory in '" + (tmp.path() / "missing").string() + "': No such file or directory");
}

TEST_CASE("files are created only under names nobody planted") {
    strata::test::ScratchDir tmp;
    DirFd d = made(tmp.path());
    const auto victim = tmp.path() / "victim";
    spit(victim, "precious");
    std::filesystem::create_symlink(victim, std::filesystem::path(d.path()) / "x509up");
    const strata::base::Status planted = d.file_write("x509up", "attacker's choice", 0600, ::geteuid(), ::getegid());
    CHECK_FALSE(planted);
    CHECK(planted.error().find("File exists") != std::string::npos);
    CHECK(slurp(victim) == "precious");
    CHECK(d.file_write("fresh", "content", 0600, ::geteuid(), ::getegid()));
    CHECK(slurp(std::filesystem::path(d.path()) / "fresh") == "content");
    CHECK_FALSE(d.file_create("fresh", 0600));
}

TEST_CASE("only regular files of the expected owner are read") {
    strata::test::ScratchDir tmp;
    DirFd d = made(tmp.path());
    const std::filesystem::path dir = d.path();
    const auto secret = tmp.path() / "secret";
    spit(secret, "root only");
    spit(dir / "plain", "hello");
    std::filesystem::create_symlink(secret, dir / "link");
    std::filesystem::create_hard_link(secret, dir / "hard");
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    const auto plain = d.file_read_owned("plain", ::geteuid());
    REQUIRE(plain);
    CHECK(*plain == std::string("hello"));
    CHECK(d.file_read_owned("link", ::geteuid()).error() == "it is a symbolic link");     // ELOOP
    CHECK(d.file_read_owned("fifo", ::geteuid()).error() == "it is not a regular file");  // EINVAL; does not block
    const auto missing = d.file_read_owned("missing", ::geteuid());                       // ENOENT: not there yet
    REQUIRE(missing);
    CHECK_FALSE(*missing);
    // A hard link is the file itself: what decides is its owner.
    CHECK(d.file_read_owned("hard", ::geteuid() + 1).error() == "it belongs to another account");  // EPERM
    CHECK(d.file_read_owned("plain", ::geteuid() + 1).error() == "it belongs to another account");
}

TEST_CASE("an existing directory is opened by name, never through a link") {
    strata::test::ScratchDir tmp;
    DirFd first = made(tmp.path());
    const std::string name = std::filesystem::path(first.path()).filename();
    strata::base::Result<DirFd> again = DirFd::open(tmp.path().string(), name);
    REQUIRE(again);
    REQUIRE(again->is_open());
    CHECK(again->remove());
    CHECK_FALSE(std::filesystem::exists(first.path()));
    const auto gone = DirFd::open(tmp.path().string(), name);  // ENOENT: gone already
    REQUIRE(gone);
    CHECK_FALSE(gone->is_open());
    std::filesystem::create_directory_symlink(tmp.path(), tmp.path() / "link");
    const auto link = DirFd::open(tmp.path().string(), "link");
    CHECK_FALSE(link);
    // Linux says ENOTDIR for O_DIRECTORY | O_NOFOLLOW
    CHECK((link.error().find(std::strerror(ELOOP)) != std::string::npos ||
           link.error().find(std::strerror(ENOTDIR)) != std::string::npos));
    CHECK(DirFd::open(tmp.path().string(), "../x").error() == "'../x' is not a directory name");  // EINVAL
}

TEST_CASE("removal stays inside the tree, whatever the tree holds") {
    strata::test::ScratchDir tmp;
    const auto outside = tmp.path() / "outside";
    std::filesystem::create_directories(outside / "deep");
    spit(outside / "keep", "keep");
    spit(outside / "deep" / "keep", "keep");
    DirFd d = made(tmp.path());
    const std::filesystem::path dir = d.path();
    std::filesystem::create_directories(dir / "a" / "b" / "c");
    spit(dir / "a" / "b" / "c" / "f", "x");
    std::filesystem::create_directory_symlink(outside, dir / "a" / "to-outside");
    std::filesystem::create_symlink(outside / "keep", dir / "a" / "b" / "to-keep");
    std::filesystem::create_hard_link(outside / "keep", dir / "hard-keep");
    REQUIRE(::mkfifo((dir / "a" / "fifo").c_str(), 0600) == 0);
    // Renaming the directory away changes nothing: it is removed where it is.
    const auto moved = tmp.path() / "moved";
    std::filesystem::rename(dir, moved);
    std::filesystem::create_directory_symlink(outside, dir);
    CHECK(d.remove());
    CHECK(std::filesystem::is_empty(moved));  // emptied where its owner put it
    CHECK(slurp(outside / "keep") == "keep");
    CHECK(slurp(outside / "deep" / "keep") == "keep");
    CHECK(std::filesystem::is_symlink(dir));  // not ours: left alone
    CHECK(d.remove());                        // closed: nothing to do
}

TEST_CASE("an attacker swapping names for links during every operation changes nothing outside", "[race]") {
    strata::test::ScratchDir tmp;
    // The victims belong to someone other than the directory's account
    // (when the test can arrange that: as root), as root's files would.
    const uid_t account = ::geteuid();
    const uid_t other = account == 0 ? 65534 : account;
    const auto victim = tmp.path() / "victim";
    spit(victim, "precious");
    ::chmod(victim.c_str(), 0600);
    const auto victim_dir = tmp.path() / "victim-dir";
    std::filesystem::create_directory(victim_dir);
    spit(victim_dir / "keep", "keep");
    if (other != account) REQUIRE(::chown(victim.c_str(), other, other) == 0);
    int refused = 0;
    for (int round = 0; round < 300; ++round) {
        DirFd d = made(tmp.path());
        const std::filesystem::path dir = d.path();
        std::atomic<bool> stop{false};
        std::thread attacker([&] {
            int i = 0;
            const char* names[] = {"x509up", "staged", "task0.out", "task0.status", "sub"};
            while (!stop.load(std::memory_order_relaxed)) {
                const auto n = dir / names[i++ % 5];
                std::error_code ec;
                std::filesystem::remove(n, ec);
                if (i % 3 == 0)
                    std::filesystem::create_symlink(i % 2 ? victim : victim_dir, n, ec);
                else if (i % 3 == 1 && other != account)
                    std::filesystem::create_hard_link(victim, n, ec);
                else
                    spit(n, "mine");
            }
        });
        if (!d.file_write("x509up", "proxy", 0600, account, ::getegid())) ++refused;
        bool leaked = false;
        for (int k = 0; k < 20; ++k) {
            if (const auto text = d.file_read_owned("task0.out", account); text && *text)
                leaked = leaked || **text == "precious";
        }
        stop = true;
        attacker.join();
        REQUIRE_FALSE(leaked);
        std::filesystem::create_directory_symlink(victim_dir, dir / "sub2");
        REQUIRE(d.remove());
        REQUIRE(slurp(victim) == "precious");
        struct stat st;
        REQUIRE(::stat(victim.c_str(), &st) == 0);
        REQUIRE(st.st_uid == other);
        REQUIRE((st.st_mode & 0777) == 0600);
        REQUIRE(slurp(victim_dir / "keep") == "keep");
    }
    INFO(refused << " of the writes met a planted name and were refused");
    SUCCEED();
}
