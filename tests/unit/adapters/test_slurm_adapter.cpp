#include "adapters/slurm_adapter.hpp"

#include <catch2/catch.hpp>

using strata::adapters::SlurmJobState;
using strata::adapters::slurm_job_id_parse;
using strata::adapters::slurm_job_state_parse;
using strata::adapters::slurm_task_status_parse;
using Kind = SlurmJobState::Kind;

TEST_CASE("slurm: the job id in sbatch's answer", "[slurm]") {
    CHECK(slurm_job_id_parse("Submitted batch job 42\n") == 42);
    CHECK(slurm_job_id_parse("sbatch: warning: something\nSubmitted batch job 7\n") == 7);
    CHECK(slurm_job_id_parse("Submitted batch job 1234567 on cluster big\n") == 1234567);
    CHECK(slurm_job_id_parse("42\n") == 42);          // --parsable
    CHECK(slurm_job_id_parse("42;cluster\n") == 42);  // --parsable on a federation
    CHECK_FALSE(slurm_job_id_parse(""));
    CHECK_FALSE(slurm_job_id_parse("sbatch: error: invalid partition specified: nope\n"));
    CHECK_FALSE(slurm_job_id_parse("Submitted batch job \n"));
    CHECK_FALSE(slurm_job_id_parse("Submitted batch job x12\n"));
    CHECK_FALSE(slurm_job_id_parse("42 43\n"));
}

TEST_CASE("slurm: job states reduced to what the adapter acts on", "[slurm]") {
    auto kind = [](const char* text) { return slurm_job_state_parse(text).kind; };
    CHECK(kind("PENDING\n") == Kind::waiting);
    CHECK(kind("CONFIGURING") == Kind::waiting);
    CHECK(kind("REQUEUED") == Kind::waiting);
    CHECK(kind("RUNNING\n") == Kind::running);
    CHECK(kind("COMPLETING") == Kind::running);
    CHECK(kind("SUSPENDED") == Kind::running);
    CHECK(kind("COMPLETED\n") == Kind::ended);
    CHECK(kind("FAILED") == Kind::ended);
    CHECK(kind("CANCELLED") == Kind::killed);
    CHECK(kind("TIMEOUT") == Kind::killed);
    CHECK(kind("NODE_FAIL") == Kind::killed);
    CHECK(kind("OUT_OF_MEMORY") == Kind::killed);
    CHECK(kind("PREEMPTED") == Kind::killed);
    const SlurmJobState by = slurm_job_state_parse("CANCELLED by 0\n");  // sacct's form
    CHECK(by.kind == Kind::killed);
    CHECK(by.name == "CANCELLED");
    CHECK(slurm_job_state_parse("RUNNING|None").kind == Kind::running);
    CHECK(kind("") == Kind::unknown);
    CHECK(kind("slurm_load_jobs error: Invalid job id specified") == Kind::unknown);
    CHECK(kind("running") == Kind::unknown);  // squeue prints upper case only
    CHECK(slurm_job_state_parse("garbage").name.empty());
}

TEST_CASE("slurm: task status files", "[slurm]") {
    const auto code = slurm_task_status_parse("exit 3\n");
    REQUIRE(code);
    CHECK_FALSE(code->exec_failed);
    CHECK_FALSE(code->exit.signaled);
    CHECK(code->exit.value == 3);
    const auto sig = slurm_task_status_parse("signal 15\n");
    REQUIRE(sig);
    CHECK(sig->exit.signaled);
    CHECK(sig->exit.value == 15);
    const auto err = slurm_task_status_parse("error 2\n");
    REQUIRE(err);
    CHECK(err->exec_failed);
    CHECK(err->error == 2);
    CHECK_FALSE(slurm_task_status_parse(""));
    CHECK_FALSE(slurm_task_status_parse("exit"));
    CHECK_FALSE(slurm_task_status_parse("exit x"));
    CHECK_FALSE(slurm_task_status_parse("exit -1"));
    CHECK_FALSE(slurm_task_status_parse("quit 1"));
    CHECK_FALSE(slurm_task_status_parse("exit 1 2"));
}
