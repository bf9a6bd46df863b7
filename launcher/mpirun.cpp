// mpirun / mpiexec: one program under two names.
#include "base/file.hpp"
#include "commfile/comm_file.hpp"
#include "job/job_request.hpp"
#include "job/local_host.hpp"
#include "launcher/coallocator.hpp"
#include "launcher/command_plan.hpp"
#include "launcher/options.hpp"

#include <boost/asio/io_context.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <vector>

namespace {

namespace job = strata::job;

// With 0, 1 or 2 closed, the pipes mpirun creates could land on them and
// get mixed up with its own stdio.
void stdio_ensure_open() {
    for (int fd = 0; fd < 3; ++fd) {
        if (::fcntl(fd, F_GETFD) >= 0) continue;
        const int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            ::dup2(null, fd);
            ::close(null);
        }
    }
}

int usage_error(const std::string& message) {
    std::fprintf(stderr, "mpirun: %s\nTry 'mpirun --help' for more information.\n", message.c_str());
    return 2;
}

int job_file_error(const std::string& message) {
    std::fprintf(stderr, "mpirun: %s\n", message.c_str());
    return 1;
}

// -dumprsl without -jobfile: the command line's job as a request.
strata::base::Result<strata::job::JobRequest> command_line_request(const strata::launcher::Options& o) {
    using namespace strata::launcher;
    if (o.machinefile.empty()) return job::job_request_local(o.np > 0 ? o.np : 1, o.program, o.args);
    strata::base::Result<job::MachineFile> file = job::MachineFile::load(o.machinefile);
    if (!file) return file.failure();
    return job::job_request_from_machine_file(*file, o.np > 0 ? o.np : file->slots_total(), o.program, o.args,
                                              job::LocalHost::probe());
}

}  // namespace

int main(int argc, char** argv) {
    using namespace strata::launcher;
    stdio_ensure_open();

    const strata::base::Result<Options> options = Options::parse(std::vector<std::string>(argv + 1, argv + argc));
    if (!options) return usage_error(options.error());
    if (options->help) {
        std::fputs(options_usage().c_str(), stdout);
        return 0;
    }
    std::optional<job::JobPlan> plan;
    if (!options->jobfile.empty()) {
        const strata::base::Result<job::JobRequest> request = job::load_job_file(options->jobfile);
        if (!request) return job_file_error(request.error());
        // Once: what the file asks that Strata accepts and does not apply
        // (a top-level key that every subjob shares is one line).
        std::set<std::string> said;
        for (const std::string& line : request->ignored)
            if (said.insert(line).second)
                std::fprintf(stderr, "mpirun: %s:%s (accepted and ignored)\n", options->jobfile.c_str(), line.c_str());
        if (options->dumprsl) {
            std::fputs(job::job_request_rsl(*request).c_str(), stdout);
            return std::fflush(stdout) == 0 ? 0 : 1;
        }
        plan = job::JobPlan::from_request(*request, job::LocalHost::probe());
    } else if (options->dumprsl) {
        const strata::base::Result<job::JobRequest> request = command_line_request(*options);
        if (!request) {
            std::fprintf(stderr, "mpirun: %s\n", request.error().c_str());
            return 2;
        }
        std::fputs(job::job_request_rsl(*request).c_str(), stdout);
        return std::fflush(stdout) == 0 ? 0 : 1;
    } else {
        strata::base::Result<job::JobPlan> built = plan_build(*options, strata::job::LocalHost::probe());
        if (!built) {
            std::fprintf(stderr, "mpirun: %s\n", built.error().c_str());
            return 2;
        }
        plan = std::move(*built);
    }

    for (const strata::base::Status& checked : {plan_emulation_check(*plan, *options), plan_relay_check(*plan)}) {
        if (!checked) {
            std::fprintf(stderr, "mpirun: %s\n", checked.error().c_str());
            return 2;
        }
    }

    // The communicator file is checked whole before anything starts.
    CommFileText comm;
    if (!options->commfile.empty()) {
        const strata::base::Result<std::string> text = strata::base::file_read(options->commfile, "communicator file");
        if (!text) return job_file_error(text.error());
        const strata::base::Result<strata::commfile::File> file = strata::commfile::parse(*text, options->commfile);
        if (!file) return job_file_error(file.error());
        comm = {options->commfile, *text};
    }

    // A closed stdout or a rank that stops reading its stdin is an event to
    // handle, not a reason for mpirun to die with its children unreaped.
    ::signal(SIGPIPE, SIG_IGN);

    int code = 1;
    try {
        boost::asio::io_context io;
        CoAllocator job(io, *options, *plan, comm);
        code = job.run();
    } catch (const std::exception& e) {
        // The adapters' destructors have killed and reaped every process by now.
        std::fprintf(stderr, "mpirun: internal error: %s; the job was ended\n", e.what());
        return 1;
    }
    return code;
}
