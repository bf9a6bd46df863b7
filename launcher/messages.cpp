#include "launcher/messages.hpp"

#include <cstring>

namespace strata::launcher::messages {

namespace {
std::string who(int rank, long pid) { return "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ")"; }
}  // namespace

std::string start_failed(const std::string& program, int rank, const std::string& contact, const std::string& reason) {
    const std::string at = contact == job::kLocalContact ? "" : " at " + contact;
    return "cannot start '" + program + "' for rank " + std::to_string(rank) + at + ": " + reason;
}

std::string subjob_failed(int subjob, const std::string& site, const std::string& contact,
                          const std::string& reason) {
    std::string where = "site " + site;
    if (contact != job::kLocalContact) where += ", contact " + contact;
    return "subjob " + std::to_string(subjob) + " (" + where + ") failed: " + reason + "; ending the job";
}

std::string startup_timeout(const std::vector<int>& missing, int count, int seconds) {
    std::string ranks;
    for (std::size_t i = 0; i < missing.size() && i < 16; ++i) ranks += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 16) ranks += ", ...";
    return std::to_string(missing.size()) + " of " + std::to_string(count) + " processes did not call MPI_Init within " +
           std::to_string(seconds) + " s of starting (rank" + (missing.size() > 1 ? "s " : " ") + ranks + ")";
}

std::string process_failed(int rank, long pid, const adapters::ProcessExit& how, Phase phase) {
    if (phase == Phase::checked_in && how.success())
        return who(rank, pid) + " exited with code 0 without calling MPI_Finalize; ending the job";
    const char* when = phase == Phase::checked_in ? " before MPI_Finalize" : "";
    return who(rank, pid) + " " + how.describe() + when + "; ending the job";
}

std::string exit_after_finalize(int rank, long pid, const adapters::ProcessExit& how) {
    return who(rank, pid) + " " + how.describe() + " after MPI_Finalize";
}

std::string exit_without_init(int rank, long pid) {
    return who(rank, pid) +
           " exited without calling MPI_Init while the others wait at the startup barrier; ending the job";
}

std::string connection_lost(int rank, long pid) {
    return who(rank, pid) + " closed its connection to mpirun before MPI_Finalize and did not exit; ending the job";
}

std::string aborted(int rank, int code, const std::string& message) {
    std::string text = "rank " + std::to_string(rank) + " called MPI_Abort with code " + std::to_string(code);
    if (!message.empty()) {
        text += '\n';
        text += message;
        while (!text.empty() && text.back() == '\n') text.pop_back();
    }
    return text;
}

std::string interrupted(int signal) {
    const char* name = ::strsignal(signal);
    return "interrupted by signal " + std::to_string(signal) + " (" + (name != nullptr ? name : "unknown") +
           "); ending the job";
}

std::string connection_dropped(const std::string& reason) { return "dropping a control connection: " + reason; }

std::string gencomm_failed(const std::string& reason) {
    return "-gencomm cannot write the communicator file: " + reason + "; ending the job";
}

}  // namespace strata::launcher::messages
