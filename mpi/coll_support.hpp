// What the collective entry points share: argument checks that raise the
// first failure through the communicator's error handler, and dense views of
// user buffers (the user's memory itself when the datatype is dense, a packed
// copy otherwise).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/inter/inter.hpp"
#include "collectives/reduce_op.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/hetero/foreign.hpp"
#include "mpi/hetero/representation.hpp"

namespace strata::mpi {

// How a collective's data travels. Between processes that store data alike
// (`rep` empty), as this process stores it. On a communicator whose processes
// differ, in one form common to them all (collective_form, mpi/hetero/foreign.hpp):
// every process converts its input into it and its output out of it, and
// reductions convert their operands to this process's form to combine them.
// `fits` turns false when a value did not fit a form it was converted into;
// the call then fails with MPI_ERR_TRUNCATE (coll_finish).
struct Form {
    std::optional<Representation> rep;
    mutable bool fits = true;
    bool converts(const Datatype& t) const { return rep.has_value() && !t.map->bytes_only; }
};

// Checks in call order; after the first failure the rest are skipped.
// Intra- and intercommunicators alike: where an argument has one entry per
// process, the processes are those point-to-point addresses (the remote group
// of an intercommunicator), unless a count of processes is given.
class CollChecks {
public:
    // The checks of `call` on `comm`, which its entry point checked.
    // `local`: the call moves no data between processes (MPI_Reduce_local,
    // which names MPI_COMM_WORLD for its error handler only).
    CollChecks(const Call& call, Comm& comm, bool local = false);
    bool ok() const { return cls_ == MPI_SUCCESS; }
    Comm& comm() const { return *comm_; }
    MPI_Comm handle() const { return handle_; }
    const char* fn() const { return fn_; }
    // A valid intercommunicator: the entry point takes the path of coll_inter.hpp.
    bool inter() const { return comm_ != nullptr && comm_->inter; }
    bool is_root(int root) const { return comm_->rank == root; }
    const Form& form() const { return form_; }

    // MPI_ERR_COMM on an intercommunicator (MPI_Scan, which MPI-2 leaves undefined there).
    CollChecks& intra();
    CollChecks& count(int n, const char* what);
    CollChecks& counts(const int* n, const char* what) { return counts(n, what, ok() ? comm_->peers() : 0); }
    CollChecks& counts(const int* n, const char* what, int procs);  // one per process, `procs` of them
    CollChecks& displs(const int* d, const char* what);  // one per process
    CollChecks& type(MPI_Datatype t, const Datatype*& out);
    // `n` elements of `t` (checked before) from `p` hold no data at address 0
    // (buffer_null: MPI_BOTTOM with a type of absolute addresses is fine).
    CollChecks& buffer(const void* p, int n, const Datatype* t, const char* what);
    CollChecks& buffer_any(const void* p, const int* counts, const Datatype* t, const char* what);  // one per process
    // A rank of the group; on an intercommunicator MPI_ROOT, MPI_PROC_NULL or
    // a rank of the remote group.
    CollChecks& root(int root);
    // MPI-1 forbids aliased arguments; MPI_BOTTOM on both sides is not aliasing
    // (each side's datatype says where its data is).
    CollChecks& distinct(const void* send, const void* recv, int n);
    // MPI_IN_PLACE given where this process may not use it.
    CollChecks& not_in_place(const void* p, const char* what);
    // The reduction of `op` on `t` (checked before), into `out`; it converts
    // its operands when form() does.
    CollChecks& op(MPI_Op op, MPI_Datatype handle, const Datatype* t, std::unique_ptr<coll::ReduceOp>& out);

    int raise() const;  // the failure through the error handler
    // The entry point's return once the collective ran (coll_finish).
    int finish(adi::Error e) const;

private:
    CollChecks& fail(int cls, std::string detail);
    MPI_Comm handle_;
    const char* fn_;
    Comm* comm_ = nullptr;
    int cls_ = MPI_SUCCESS;
    std::string detail_;
    Form form_;
};

// The collective view of `c`'s (local) group, with the levels of the topology
// it spans (made on the first collective).
coll::Group group_of(Comm& c);
// Both groups of intercommunicator `c`, for collectives/inter/.
coll::inter::Groups groups_of(Comm& c);

// The entry point's return: success, or the collective's failure raised (a
// value that did not fit `form` when the collective itself succeeded).
int coll_finish(MPI_Comm comm, const char* fn, adi::Error e, const Form& form);

// Whether elements of `t` lie in memory exactly as their dense form does,
// starting at the buffer address itself.
inline bool dense_layout(const Datatype& t) { return t.contiguous && t.extent == t.size && t.map->true_lb == 0; }

inline std::size_t bytes_of(const Datatype& t, int count) {
    return static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size);
}
// The bytes `count` elements of `t` take as the collective moves them.
std::size_t bytes_of(const Datatype& t, int count, const Form& form);

// Elements of the reduction `op` in `count` elements of `t`, which for a
// predefined operation are the datatype's basic elements: what the reduction
// algorithms count.
inline std::size_t op_elements(const Datatype& t, int count, const coll::ReduceOp& op, const Form& form) {
    return op.element_bytes() == 0 ? 0 : bytes_of(t, count, form) / op.element_bytes();
}

inline bool in_place(const void* p) { return p == MPI_IN_PLACE; }

// Where element `index` of a buffer of type `t` starts (an MPI_IN_PLACE
// process's own block of the receive buffer); an origin, like `buf` itself,
// so from MPI_BOTTOM it is an offset from NULL.
inline const void* element_at(const void* buf, const Datatype& t, long long index) {
    return byte_address(buf, static_cast<MPI_Aint>(index * static_cast<long long>(t.extent)));
}

// A user send buffer as dense bytes. `copy`: always a copy, never the user's
// memory (an MPI_IN_PLACE input that the call then overwrites).
class DenseIn {
public:
    DenseIn(const Datatype& t, const void* buf, int count, const Form& form, bool copy = false);
    const void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

private:
    std::vector<std::byte> copy_;
    StageBuffer stage_;  // the copy when it is converted
    const void* data_;
    std::size_t bytes_;
};

// A user receive (or in-out) buffer as dense bytes; finish() moves received
// data into the user's layout when a copy was used. `in` packs the current
// contents first (broadcast root).
class DenseOut {
public:
    DenseOut(const Datatype& t, void* buf, int count, const Form& form, bool in = false);
    void* data() { return data_; }
    std::size_t bytes() const { return bytes_; }
    void finish();

private:
    const Datatype& type_;
    void* buf_;
    int count_;
    const Form& form_;
    std::vector<std::byte> copy_;
    StageBuffer stage_;  // the copy when it is converted
    void* data_;
    std::size_t bytes_;
};

// Per-process blocks (the v-variants) as dense bytes: byte counts and byte
// displacements into one dense area, which is the user's buffer when the
// datatype is dense and displacements are not negative, else a copy.
class DenseBlocks {
public:
    // `blocks`: whether this process uses the blocks at all (roots only, for
    // gatherv and scatterv); an unused one is empty. `copy`: always a copy
    // (an MPI_IN_PLACE input).
    DenseBlocks(const Datatype* t, const void* buf, const int* counts, const int* displs, int procs, bool blocks,
                const Form& form, bool copy = false);
    std::span<const std::size_t> counts() const { return counts_; }
    std::span<const std::size_t> displs() const { return displs_; }
    void* data() { return data_; }
    void pack_from_user();   // send side, when a copy is used
    void unpack_to_user();   // receive side, when a copy is used

private:
    void* block_origin(std::size_t i) const;  // of process i's block in the user's buffer
    const Datatype* type_;
    void* buf_;
    const Form& form_;
    const int* user_counts_;
    const int* user_displs_;
    std::vector<std::size_t> counts_, displs_;
    std::vector<std::byte> copy_;
    StageBuffer stage_;  // the copy when it is converted
    void* data_ = nullptr;
    bool copied_ = false;
};

}  // namespace strata::mpi
