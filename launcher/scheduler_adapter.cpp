#include "launcher/scheduler_adapter.hpp"

#include "launcher/fork_adapter.hpp"
#include "launcher/gatekeeper_adapter.hpp"
#include "security/tls.hpp"

#include <cstring>

namespace strata::launcher {

std::string ProcessExit::describe() const {
    if (!signaled) return "exited with code " + std::to_string(value);
    const char* name = ::strsignal(value);
    return "was killed by signal " + std::to_string(value) + " (" + (name != nullptr ? name : "unknown") + ")";
}

const char* job_state_name(JobState state) {
    switch (state) {
        case JobState::pending: return "PENDING";
        case JobState::active: return "ACTIVE";
        case JobState::done: return "DONE";
        case JobState::failed: return "FAILED";
    }
    return "UNKNOWN";
}

// The adapter table: the embedded fork adapter for this machine, a
// gatekeeper for every other contact.
std::unique_ptr<SchedulerAdapter> SchedulerAdapter::create(boost::asio::io_context& io, const Subjob& subjob,
                                                           std::string& error) {
    if (subjob.contact == kLocalContact) return std::make_unique<ForkAdapter>(io);
    std::string why;
    std::size_t offset = 0;
    std::optional<Contact> contact = contact_parse(subjob.contact, why, offset);
    if (!contact) {
        error = "subjob " + std::to_string(subjob.index) + ": " + why;
        return nullptr;
    }
    // One credential for all of mpirun's gatekeeper connections.
    static std::shared_ptr<boost::asio::ssl::context> tls;
    if (!tls) {
        auto cred = security::user_credential_find();
        if (!cred.ok()) {
            error = cred.error;
            return nullptr;
        }
        auto ctx = security::tls_context_make(security::TlsRole::client, cred.value);
        if (!ctx.ok()) {
            error = "subjob " + std::to_string(subjob.index) + " (" + subjob.contact + ") needs your grid credential: " +
                    ctx.error + " (strata-ca user makes one; X509_USER_CERT, X509_USER_KEY and X509_CERT_DIR name "
                    "other files)";
            return nullptr;
        }
        tls = std::move(ctx.value);
    }
    return std::make_unique<GatekeeperAdapter>(io, *contact, tls);
}

}  // namespace strata::launcher
