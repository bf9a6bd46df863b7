#include "gatekeeper/subjob_record.hpp"

#include "../security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

using strata::gatekeeper::RecordStore;
using strata::gatekeeper::SubjobRecord;

TEST_CASE("subjob records: every field travels, and damage is named", "[gatekeeper-record]") {
    SubjobRecord r;
    r.subject = "/O=Strata Grid/CN=Jane Doe";
    r.account = "jane";
    r.adapter = "slurm";
    r.job_dir = "/var/tmp/strata/strata-job-jane-abc123";
    r.work_dir = "/var/tmp/strata/strata-slurm-0-xyz";
    r.slurm_job = 42;
    r.processes = {{1234, 987654321ULL}, {1240, 987654400ULL}};
    const auto back = strata::gatekeeper::record_decode(strata::gatekeeper::record_encode(r));
    INFO(back.error());
    REQUIRE(back);
    CHECK(*back == r);
    CHECK_FALSE(strata::gatekeeper::record_decode("adapter fork\nslurm_job x\n"));
    CHECK(strata::gatekeeper::record_decode("adapter fork\nslurm_job x\n").error() ==
          "line 2: slurm_job is not a number");
    CHECK_FALSE(strata::gatekeeper::record_decode("process 1 5\n"));  // never pid 1
    CHECK(strata::gatekeeper::record_decode("process 1 5\n").error() == "line 1: expected 'process PID START'");
    CHECK_FALSE(strata::gatekeeper::record_decode("pids 5\n"));
    CHECK(strata::gatekeeper::record_decode("pids 5\n").error() == "line 1: unknown field 'pids'");
}

TEST_CASE("subjob records: a process is known by its pid and start time", "[gatekeeper-record]") {
    const auto mine = strata::gatekeeper::process_start_time(::getpid());
    REQUIRE(mine);
    CHECK(strata::gatekeeper::process_start_time(::getpid()) == mine);
    CHECK_FALSE(strata::gatekeeper::process_start_time(0x7ffffff0));
}

TEST_CASE("subjob records: the store is private and lists what it holds", "[gatekeeper-record]") {
    strata::test::ScratchDir tmp;
    const std::string dir = (tmp.path() / "state").string();
    auto store = RecordStore::open(dir);
    INFO(store.error());
    REQUIRE(store);
    struct stat st;
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    SubjobRecord r;
    r.adapter = "fork";
    REQUIRE(store->write("subjob-1", r));
    const auto all = store->list();
    REQUIRE(all.size() == 1);
    CHECK(all[0].first == "subjob-1");
    store->remove("subjob-1");
    CHECK(store->list().empty());
    ::chmod(dir.c_str(), 0777);
    CHECK_FALSE(RecordStore::open(dir));
    CHECK(RecordStore::open(dir).error() ==
          "the state directory '" + dir + "' must be a directory of this account that no one else can write");
}
