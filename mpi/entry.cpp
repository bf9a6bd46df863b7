// What the generated entry points' checks say when an argument is wrong.
#include "mpi/entry.hpp"

namespace strata::mpi::check {

int comm_fail(Call call, MPI_Comm comm) {
    return call.raise(MPI_ERR_COMM,
                      comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator" : "not a communicator handle");
}

int predefined_comm(Call call, const char* verb) {
    return call.raise(MPI_ERR_COMM, std::string("MPI_COMM_WORLD and MPI_COMM_SELF cannot be ") + verb);
}

int not_intra(Call call) { return call.raise(MPI_ERR_COMM, "an intercommunicator is not allowed here"); }

int not_inter(Call call) { return call.raise(MPI_ERR_COMM, "not an intercommunicator"); }

int no_topology(Call call, const char* which) {
    return call.raise(MPI_ERR_TOPOLOGY, std::string("the communicator has no ") + which + " topology");
}

int group_fail(Call call, MPI_Group group) {
    return call.raise(MPI_ERR_GROUP, group == MPI_GROUP_NULL ? "MPI_GROUP_NULL is not a group" : "not a group handle");
}

int errhandler_fail(Call call, MPI_Errhandler errhandler) {
    return call.raise(MPI_ERR_ARG, errhandler == MPI_ERRHANDLER_NULL ? "MPI_ERRHANDLER_NULL is not an error handler"
                                                                     : "not an error handler handle");
}

int keyval_fail(Call call, int keyval) {
    return call.raise(MPI_ERR_ARG, "invalid attribute key " + std::to_string(keyval));
}

int op_fail(Call call, MPI_Op op) {
    return call.raise(MPI_ERR_OP, op == MPI_OP_NULL ? "MPI_OP_NULL is not an operation" : "not a valid operation");
}

int info_fail(Call call, MPI_Info info) {
    if (info == MPI_INFO_NULL) return call.raise(MPI_ERR_INFO, "info is MPI_INFO_NULL; make one with MPI_Info_create");
    return call.raise(MPI_ERR_INFO, "info names no info object (never created, or freed)");
}

int info_key_fail(Call call, const char* key, std::string_view view) {
    if (key == nullptr) return null(call, "key");
    if (view.empty()) return call.raise(MPI_ERR_INFO_KEY, "the key is empty");
    return call.raise(MPI_ERR_INFO_KEY, "the key is longer than " + std::to_string(kInfoKeyMax) +
                                            " characters (MPI_MAX_INFO_KEY - 1, room for the NUL)");
}

int info_value_fail(Call call, const char* value) {
    if (value == nullptr) return null(call, "value");
    return call.raise(MPI_ERR_INFO_VALUE, "the value is longer than " + std::to_string(kInfoValueMax) +
                                              " characters (MPI_MAX_INFO_VAL - 1, room for the NUL)");
}

int type_fail(Call call, MPI_Datatype type, const Datatype* t) {
    if (t != nullptr) return call.raise(MPI_ERR_TYPE, "the datatype is not committed; call MPI_Type_commit first");
    return call.raise(MPI_ERR_TYPE,
                      type == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype" : "not a datatype handle");
}

int negative(Call call, int cls, const char* name, int value) {
    return call.raise(cls, std::string(name) + " " + std::to_string(value) + " is negative");
}

int null(Call call, const char* name) { return call.raise(MPI_ERR_ARG, std::string(name) + " is NULL"); }

int null_request(Call call, const char* name) {
    return call.raise(MPI_ERR_REQUEST, std::string(name) + " is NULL");
}

int requests_fail(Call call, const char* name, const MPI_Request* handles, int n) {
    int i = 0;
    while (i < n && (handles[i] == MPI_REQUEST_NULL || rt().requests.get(handles[i]) != nullptr)) ++i;
    return call.raise(MPI_ERR_REQUEST,
                      n == 1 ? "not a valid request handle"
                             : std::string(name) + "[" + std::to_string(i) + "] is not a valid request handle");
}

int buffer_fail(Call call, const char* name, int count) {
    return call.raise(MPI_ERR_BUFFER, std::string(name) + " is NULL but count is " + std::to_string(count) +
                                          " (MPI_BOTTOM needs a datatype of absolute addresses)");
}

int dest_fail(Call call, const Comm& c, int dest) {
    return call.raise(MPI_ERR_RANK, "destination rank " + std::to_string(dest) +
                                        " is not in a communicator of size " + std::to_string(c.peers()));
}

int source_fail(Call call, const Comm& c, int source) {
    return call.raise(MPI_ERR_RANK, "source rank " + std::to_string(source) + " is not in a communicator of size " +
                                        std::to_string(c.peers()));
}

int send_tag_fail(Call call, int tag) {
    return call.raise(MPI_ERR_TAG, "send tag " + std::to_string(tag) + " is negative");
}

int recv_tag_fail(Call call, int tag) {
    return call.raise(MPI_ERR_TAG, "receive tag " + std::to_string(tag) + " is neither >= 0 nor MPI_ANY_TAG");
}

}  // namespace strata::mpi::check
