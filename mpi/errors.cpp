#include "mpi/comms/comm.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "mpi/runtime.hpp"

namespace strata::mpi {

namespace {

struct ClassText {
    int cls;
    const char* text;
};

// The one table of error texts.
const ClassText kTexts[] = {
    {MPI_SUCCESS, "no error"},
    {MPI_ERR_BUFFER, "invalid buffer pointer, or not enough space in the attached buffer (MPI_ERR_BUFFER)"},
    {MPI_ERR_COUNT, "invalid count argument (MPI_ERR_COUNT)"},
    {MPI_ERR_TYPE, "invalid datatype (MPI_ERR_TYPE)"},
    {MPI_ERR_TAG, "invalid tag (MPI_ERR_TAG)"},
    {MPI_ERR_COMM, "invalid communicator (MPI_ERR_COMM)"},
    {MPI_ERR_RANK, "invalid rank (MPI_ERR_RANK)"},
    {MPI_ERR_REQUEST, "invalid request (MPI_ERR_REQUEST)"},
    {MPI_ERR_ROOT, "invalid root (MPI_ERR_ROOT)"},
    {MPI_ERR_GROUP, "invalid group (MPI_ERR_GROUP)"},
    {MPI_ERR_OP, "invalid reduction operation (MPI_ERR_OP)"},
    {MPI_ERR_TOPOLOGY, "invalid topology (MPI_ERR_TOPOLOGY)"},
    {MPI_ERR_DIMS, "invalid dimension argument (MPI_ERR_DIMS)"},
    {MPI_ERR_ARG, "invalid argument (MPI_ERR_ARG)"},
    {MPI_ERR_UNKNOWN, "unknown error (MPI_ERR_UNKNOWN)"},
    {MPI_ERR_TRUNCATE, "message truncated: the receive buffer is smaller than the message (MPI_ERR_TRUNCATE)"},
    {MPI_ERR_OTHER, "error not covered by another class (MPI_ERR_OTHER)"},
    {MPI_ERR_INTERN, "internal error in the MPI library (MPI_ERR_INTERN)"},
    {MPI_ERR_IN_STATUS, "error code is in the status (MPI_ERR_IN_STATUS)"},
    {MPI_ERR_PENDING, "request pending (MPI_ERR_PENDING)"},
    {MPI_ERR_NO_MEM, "out of memory (MPI_ERR_NO_MEM)"},
    {MPI_ERR_INFO, "invalid info object (MPI_ERR_INFO)"},
    {MPI_ERR_INFO_KEY, "invalid info key: empty, or longer than MPI_MAX_INFO_KEY - 1 characters (MPI_ERR_INFO_KEY)"},
    {MPI_ERR_INFO_VALUE, "info value longer than MPI_MAX_INFO_VAL - 1 characters (MPI_ERR_INFO_VALUE)"},
    {MPI_ERR_INFO_NOKEY, "the key is not set in the info object (MPI_ERR_INFO_NOKEY)"},
    {MPI_ERR_PORT, "invalid port name, or the port refused the connection (MPI_ERR_PORT)"},
    {MPI_ERR_NAME, "no service published under that name (MPI_ERR_NAME)"},
    {MPI_ERR_SERVICE, "the service name could not be published or unpublished (MPI_ERR_SERVICE)"},
    {MPIX_ERR_QOS, "premium service refused: a link has not that much premium capacity left (MPIX_ERR_QOS)"},
};
// Every class from MPI_SUCCESS to MPI_ERR_LASTCODE has its text.
static_assert(std::size(kTexts) == MPI_ERR_LASTCODE + 1, "an error class without a text, or a text too many");

}  // namespace

const char* error_class_text(int cls) {
    for (const auto& t : kTexts) {
        if (t.cls == cls) return t.text;
    }
    return nullptr;
}

int error_class_of(adi::Error e) {
    switch (e) {
        case adi::Error::none: return MPI_SUCCESS;
        case adi::Error::truncated: return MPI_ERR_TRUNCATE;
        case adi::Error::peer_failed: return MPI_ERR_OTHER;
    }
    return MPI_ERR_INTERN;
}

[[noreturn]] void fatal(const char* fn, const std::string& text) {
    int rank = running() ? rt().world_rank : -1;
    std::string msg = "strata: ";
    if (rank >= 0) msg += "rank " + std::to_string(rank) + ": ";
    msg += "fatal error in ";
    msg += fn;
    msg += ": " + text;
    std::fflush(stdout);
    if (running() && rt().client) {
        // mpirun prints the message once and ends the job.
        rt().client->abort(1, msg);
    } else {
        std::fprintf(stderr, "%s\n", msg.c_str());
    }
    _exit(1);
}

int error_raise(MPI_Comm comm, int cls, const char* fn, const std::string& detail) {
    Runtime& r = rt();
    Comm* c = r.comms.get(comm);
    if (c == nullptr) {
        comm = MPI_COMM_WORLD;
        c = r.comms.get(comm);
    }
    Errhandler* eh = r.errhandlers.get(c->errhandler);
    if (eh == nullptr || eh->fatal) {
        const char* known = error_class_text(cls);
        std::string text = known != nullptr ? known : "error code " + std::to_string(cls);
        if (!detail.empty()) text += ": " + detail;
        fatal(fn, text);
    }
    if (eh->fn != nullptr) {
        int code = cls;
        eh->fn(&comm, &code, fn, detail.c_str());
    }
    return cls;
}

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

STRATA_PMPI_ALIAS(MPI_Error_string);
int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
    const char* text = error_class_text(errorcode);
    if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
    if (text == nullptr) {
        std::snprintf(string, MPI_MAX_ERROR_STRING, "invalid error code %d", errorcode);
        *resultlen = static_cast<int>(std::strlen(string));
        return MPI_ERR_ARG;
    }
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
}

STRATA_PMPI_ALIAS(MPI_Error_class);
int PMPI_Error_class(int errorcode, int* errorclass) {
    if (errorclass == nullptr || error_class_text(errorcode) == nullptr) return MPI_ERR_ARG;
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

}  // extern "C"
