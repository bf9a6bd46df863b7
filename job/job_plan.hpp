// The job as a list of subjobs: which ranks start where, and through which
// scheduler adapter (a subjob's contact).
#pragma once

#include "job/job_request.hpp"
#include "job/local_host.hpp"
#include "job/subjob.hpp"

#include <string>
#include <vector>

namespace strata::job {

struct JobPlan {
    int size = 0;
    std::vector<Subjob> subjobs;

    // The only way to a plan: a request (a job file's or the command line's).
    // A subjob's contact is kLocalContact (the embedded
    // fork adapter) when it names this machine, the fork adapter and no port;
    // otherwise it is the contact's text, for the gatekeeper there.
    static JobPlan from_request(const JobRequest& request, const LocalHost& local);
};

}  // namespace strata::job
