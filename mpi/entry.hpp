// What the generated C entry points (mpi/gen_c_bindings.py, from
// mpi/c_routines.txt) are made of: one predicate (ok::KIND) and one check
// (check::KIND) per argument kind of the table. Each check is inline and only
// tests; what it says when the argument is wrong is out of line (entry.cpp),
// so every call pays for the test and only a wrong one for the words.
//
// A body (strata::mpi::body::NAME, written by hand beside the other code of
// its family) takes the Call (mpi/errors.hpp: the function's name and the
// communicator its errors go to), then the arguments in the C order, each
// handle of a checked kind as its object (Comm&, ProcessGroup&, Datatype&...) and
// each checked output pointer as a reference.
#pragma once

#include <string>
#include <string_view>

#include "mpi/comms/attr.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "mpi/pmpi_alias.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

namespace check {

// The failures, out of line.
[[gnu::cold]] int comm_fail(Call call, MPI_Comm comm);
[[gnu::cold]] int predefined_comm(Call call, const char* verb);
[[gnu::cold]] int not_intra(Call call);
[[gnu::cold]] int not_inter(Call call);
[[gnu::cold]] int no_topology(Call call, const char* which);
[[gnu::cold]] int group_fail(Call call, MPI_Group group);
[[gnu::cold]] int errhandler_fail(Call call, MPI_Errhandler errhandler);
[[gnu::cold]] int keyval_fail(Call call, int keyval);
[[gnu::cold]] int op_fail(Call call, MPI_Op op);
[[gnu::cold]] int info_fail(Call call, MPI_Info info);
[[gnu::cold]] int info_key_fail(Call call, const char* key, std::string_view view);
[[gnu::cold]] int info_value_fail(Call call, const char* value);
[[gnu::cold]] int type_fail(Call call, MPI_Datatype type, const Datatype* t);
[[gnu::cold]] int negative(Call call, int cls, const char* name, int value);
[[gnu::cold]] int null(Call call, const char* name);
[[gnu::cold]] int null_request(Call call, const char* name);
[[gnu::cold]] int requests_fail(Call call, const char* name, const MPI_Request* handles, int n);
[[gnu::cold]] int buffer_fail(Call call, const char* name, int count);
[[gnu::cold]] int dest_fail(Call call, const Comm& c, int dest);
[[gnu::cold]] int source_fail(Call call, const Comm& c, int source);
[[gnu::cold]] int send_tag_fail(Call call, int tag);
[[gnu::cold]] int recv_tag_fail(Call call, int tag);

// Each kind is a predicate, ok::KIND, and a check, check::KIND, which an
// entry point runs for each of its arguments of that kind, in the order of
// the table's kinds: the predicate inline, the failure out of line. (Testing
// every predicate in one expression before any failure path was measured
// slower on MPI_Isend and MPI_Recv: docs/PERFORMANCE.md.)
namespace ok {

// comm: a communicator; intracomm: not an intercommunicator; intercomm: one.
inline bool comm(MPI_Comm h, Comm*& c) { return (c = comm_get(h)) != nullptr; }
inline bool intracomm(MPI_Comm h, Comm*& c) { return comm(h, c) && !c->inter; }
inline bool intercomm(MPI_Comm h, Comm*& c) { return comm(h, c) && c->inter; }
// cart, graph: a communicator with a Cartesian, or a graph, topology.
inline bool cart(MPI_Comm h, Comm*& c) { return comm(h, c) && std::holds_alternative<CartTopology>(c->topology); }
inline bool graph(MPI_Comm h, Comm*& c) { return comm(h, c) && std::holds_alternative<GraphTopology>(c->topology); }
// group: a group.
inline bool group(MPI_Group h, ProcessGroup*& g) { return (g = rt().groups.get(h)) != nullptr; }
// errhandler: an error handler (the body gets the handle).
inline bool errhandler(MPI_Errhandler h) { return rt().errhandlers.get(h) != nullptr; }
// keyval: an attribute key (the body gets the key).
inline bool keyval(int k) { return rt().keyvals.get(k) != nullptr; }
// op: a reduction operation.
inline bool op(MPI_Op h, Operation*& o) { return (o = rt().ops.get(h)) != nullptr; }
// info: an info object; info_key, info_value: a key or a value for one (the
// body gets a std::string_view of it).
inline bool info(MPI_Info h, Info*& i) { return (i = rt().infos.get(h)) != nullptr; }
inline bool info_key(const char* key, std::string_view& view) {
    if (key == nullptr) return false;
    view = std::string_view(key, strnlen(key, kInfoKeyMax + 1));
    return info_key_fits(view);
}
inline bool info_value(const char* value, std::string_view& view) {
    if (value == nullptr) return false;
    view = std::string_view(value, strnlen(value, kInfoValueMax + 1));
    return info_value_fits(view);
}
// type: a datatype, committed or not; ctype: a committed one (what moves data).
inline bool type(MPI_Datatype h, Datatype*& t) { return (t = datatype_get(h)) != nullptr; }
inline bool ctype(MPI_Datatype h, Datatype*& t) { return type(h, t) && t->committed; }
// count: an element count (MPI_ERR_COUNT when negative); size: any other
// number of things (MPI_ERR_ARG).
inline bool count(int n) { return n >= 0; }
inline bool size(int n) { return n >= 0; }
// out, in: a pointer the call writes or reads through (its body gets a
// reference); nonnull: a pointer its body gets as it is (a function's too).
inline bool out(const void* p) { return p != nullptr; }
inline bool in(const void* p) { return p != nullptr; }
template <class T>
inline bool nonnull(T* p) {
    return p != nullptr;
}
// request: where a request handle is (its body gets the handle by reference
// and looks it up: MPI_REQUEST_NULL means something different to each call).
inline bool request(const MPI_Request* p) { return p != nullptr; }
// requests=N: N request handles, each MPI_REQUEST_NULL or a request.
inline bool requests(const MPI_Request* handles, int n) {
    if (handles == nullptr) return n == 0;
    for (int i = 0; i < n; ++i) {
        if (handles[i] != MPI_REQUEST_NULL && rt().requests.get(handles[i]) == nullptr) return false;
    }
    return true;
}
// array=N: N elements, so not NULL unless N is 0.
inline bool array(const void* p, int n) { return p != nullptr || n == 0; }
// buf=COUNT/TYPE: a buffer of COUNT elements of TYPE: NULL only when no data
// starts at address 0.
inline bool buf(const void* p, int n, const Datatype& t) { return !buffer_null(p, n, *t.map); }
// dest=COMM, source=COMM: a rank of COMM (of its remote group on an
// intercommunicator) to send to, or to receive from; MPI_PROC_NULL is one,
// and MPI_ANY_SOURCE a source.
inline bool dest(int rank, const Comm& c) { return (rank >= 0 && rank < c.peers()) || rank == MPI_PROC_NULL; }
inline bool source(int rank, const Comm& c) {
    return (rank >= 0 && rank < c.peers()) || rank == MPI_PROC_NULL || rank == MPI_ANY_SOURCE;
}
// send_tag, recv_tag: a tag to send with (>= 0), or to receive (or MPI_ANY_TAG).
inline bool send_tag(int tag) { return tag >= 0; }
inline bool recv_tag(int tag) { return tag >= 0 || tag == MPI_ANY_TAG; }

}  // namespace ok

// The checks: what an entry point runs for each checked argument, in the
// order of the kinds; each tests inline, and raises out of line.
inline int comm(Call call, MPI_Comm h, Comm*& c) {
    if (ok::comm(h, c)) [[likely]] return MPI_SUCCESS;
    return comm_fail(call, h);
}
// A communicator the program made, which `verb` (freed, disconnected) may
// end: not MPI_COMM_WORLD or MPI_COMM_SELF. Errors are raised on it.
inline int made_comm(Call call, MPI_Comm h, Comm*& c, const char* verb) {
    const Call on{call.fn, h};
    if (int e = comm(on, h, c)) return e;
    if (h != MPI_COMM_WORLD && h != MPI_COMM_SELF) [[likely]] return MPI_SUCCESS;
    return predefined_comm(on, verb);
}
inline int intracomm(Call call, MPI_Comm h, Comm*& c) {
    if (int e = comm(call, h, c)) return e;
    if (!c->inter) [[likely]] return MPI_SUCCESS;
    return not_intra(call);
}
inline int intercomm(Call call, MPI_Comm h, Comm*& c) {
    if (int e = comm(call, h, c)) return e;
    if (c->inter) [[likely]] return MPI_SUCCESS;
    return not_inter(call);
}
inline int cart(Call call, MPI_Comm h, Comm*& c) {
    if (int e = comm(call, h, c)) return e;
    if (std::holds_alternative<CartTopology>(c->topology)) [[likely]] return MPI_SUCCESS;
    return no_topology(call, "a Cartesian");
}
inline int graph(Call call, MPI_Comm h, Comm*& c) {
    if (int e = comm(call, h, c)) return e;
    if (std::holds_alternative<GraphTopology>(c->topology)) [[likely]] return MPI_SUCCESS;
    return no_topology(call, "a graph");
}
inline int group(Call call, MPI_Group h, ProcessGroup*& g) {
    if (ok::group(h, g)) [[likely]] return MPI_SUCCESS;
    return group_fail(call, h);
}
inline int errhandler(Call call, MPI_Errhandler h) {
    if (ok::errhandler(h)) [[likely]] return MPI_SUCCESS;
    return errhandler_fail(call, h);
}
inline int keyval(Call call, int k) {
    if (ok::keyval(k)) [[likely]] return MPI_SUCCESS;
    return keyval_fail(call, k);
}
inline int op(Call call, MPI_Op h, Operation*& o) {
    if (ok::op(h, o)) [[likely]] return MPI_SUCCESS;
    return op_fail(call, h);
}
inline int info(Call call, MPI_Info h, Info*& i) {
    if (ok::info(h, i)) [[likely]] return MPI_SUCCESS;
    return info_fail(call, h);
}
inline int info_key(Call call, const char* key, std::string_view& view) {
    if (ok::info_key(key, view)) [[likely]] return MPI_SUCCESS;
    return info_key_fail(call, key, view);
}
inline int info_value(Call call, const char* value, std::string_view& view) {
    if (ok::info_value(value, view)) [[likely]] return MPI_SUCCESS;
    return info_value_fail(call, value);
}
inline int type(Call call, MPI_Datatype h, Datatype*& t) {
    if (ok::type(h, t)) [[likely]] return MPI_SUCCESS;
    return type_fail(call, h, t);
}
inline int ctype(Call call, MPI_Datatype h, Datatype*& t) {
    if (ok::ctype(h, t)) [[likely]] return MPI_SUCCESS;
    return type_fail(call, h, t);
}
inline int count(Call call, const char* name, int n) {
    if (ok::count(n)) [[likely]] return MPI_SUCCESS;
    return negative(call, MPI_ERR_COUNT, name, n);
}
inline int size(Call call, const char* name, int n) {
    if (ok::size(n)) [[likely]] return MPI_SUCCESS;
    return negative(call, MPI_ERR_ARG, name, n);
}
inline int out(Call call, const char* name, const void* p) {
    if (ok::out(p)) [[likely]] return MPI_SUCCESS;
    return null(call, name);
}
inline int in(Call call, const char* name, const void* p) {
    if (ok::in(p)) [[likely]] return MPI_SUCCESS;
    return null(call, name);
}
template <class T>
inline int nonnull(Call call, const char* name, T* p) {
    if (ok::nonnull(p)) [[likely]] return MPI_SUCCESS;
    return null(call, name);
}
inline int request(Call call, const char* name, const MPI_Request* p) {
    if (ok::request(p)) [[likely]] return MPI_SUCCESS;
    return null_request(call, name);
}
inline int requests(Call call, const char* name, const MPI_Request* handles, int n) {
    if (ok::requests(handles, n)) [[likely]] return MPI_SUCCESS;
    return requests_fail(call, name, handles, n);
}
inline int array(Call call, const char* name, const void* p, int n) {
    if (ok::array(p, n)) [[likely]] return MPI_SUCCESS;
    return null(call, name);
}
inline int buf(Call call, const char* name, const void* p, int n, const Datatype& t) {
    if (ok::buf(p, n, t)) [[likely]] return MPI_SUCCESS;
    return buffer_fail(call, name, n);
}
inline int dest(Call call, int rank, const Comm& c) {
    if (ok::dest(rank, c)) [[likely]] return MPI_SUCCESS;
    return dest_fail(call, c, rank);
}
inline int source(Call call, int rank, const Comm& c) {
    if (ok::source(rank, c)) [[likely]] return MPI_SUCCESS;
    return source_fail(call, c, rank);
}
inline int send_tag(Call call, int tag) {
    if (ok::send_tag(tag)) [[likely]] return MPI_SUCCESS;
    return send_tag_fail(call, tag);
}
inline int recv_tag(Call call, int tag) {
    if (ok::recv_tag(tag)) [[likely]] return MPI_SUCCESS;
    return recv_tag_fail(call, tag);
}

}  // namespace check
}  // namespace strata::mpi
