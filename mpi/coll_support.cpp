#include "mpi/coll_support.hpp"

#include <algorithm>

#include "mpi/comms/agreement.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/port.hpp"
#include "mpi/hetero/foreign.hpp"

namespace strata::mpi {

namespace {

// The processes whose common form a collective on `c` moves data in
// (collective_form takes the first one's byte order). On an
// intercommunicator both groups must find the same form, although each sees
// the other as remote and world ranks need not compare across groups: the
// first is the member whose representation reads lowest, then the rest.
std::vector<int> form_members(const Comm& c) {
    if (!c.inter) return c.world;
    std::vector<int> all = c.local;
    all.insert(all.end(), c.world.begin(), c.world.end());
    const auto lower = [](int a, int b) {
        const auto& reps = rt().representations;
        return reps[static_cast<std::size_t>(a)].bytes() < reps[static_cast<std::size_t>(b)].bytes();
    };
    std::iter_swap(all.begin(), std::min_element(all.begin(), all.end(), lower));
    return all;
}

}  // namespace

CollChecks::CollChecks(const Call& call, Comm& comm, bool local) : handle_(call.comm), fn_(call.fn), comm_(&comm) {
    if (!local && comm_spans(comm)) form_.rep = collective_form(form_members(comm));
}

CollChecks& CollChecks::intra() {
    if (ok() && comm_->inter) {
        fail(MPI_ERR_COMM, std::string("an intercommunicator; MPI-2 defines ") + fn_ +
                               " on intracommunicators only");
    }
    return *this;
}

CollChecks& CollChecks::fail(int cls, std::string detail) {
    if (ok()) {
        cls_ = cls;
        detail_ = std::move(detail);
    }
    return *this;
}

CollChecks& CollChecks::count(int n, const char* what) {
    if (ok() && n < 0) fail(MPI_ERR_COUNT, std::string(what) + " is negative (" + std::to_string(n) + ")");
    return *this;
}

CollChecks& CollChecks::counts(const int* n, const char* what, int procs) {
    if (!ok()) return *this;
    if (n == nullptr) return fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    for (int i = 0; i < procs; ++i) {
        if (n[i] < 0)
            return fail(MPI_ERR_COUNT, std::string(what) + "[" + std::to_string(i) + "] is negative (" +
                                           std::to_string(n[i]) + ")");
    }
    return *this;
}

CollChecks& CollChecks::displs(const int* d, const char* what) {
    if (ok() && d == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    return *this;
}

CollChecks& CollChecks::type(MPI_Datatype t, const Datatype*& out) {
    if (!ok()) return *this;
    out = datatype_get(t);
    if (out == nullptr) fail(MPI_ERR_TYPE, "not a valid datatype");
    return *this;
}

namespace {
std::string null_detail(const char* what) {
    return std::string(what) + " is NULL with a non-zero count (MPI_BOTTOM needs a datatype of absolute addresses)";
}
}  // namespace

CollChecks& CollChecks::buffer(const void* p, int n, const Datatype* t, const char* what) {
    if (ok() && buffer_null(p, n, *t->map)) fail(MPI_ERR_BUFFER, null_detail(what));
    return *this;
}

CollChecks& CollChecks::buffer_any(const void* p, const int* counts, const Datatype* t, const char* what) {
    if (!ok() || p != nullptr) return *this;
    for (int i = 0; i < comm_->peers(); ++i) {
        if (buffer_null(p, counts[i], *t->map)) return fail(MPI_ERR_BUFFER, null_detail(what));
    }
    return *this;
}

CollChecks& CollChecks::root(int root) {
    if (!ok()) return *this;
    if (!comm_->inter && (root < 0 || root >= comm_->size())) {
        fail(MPI_ERR_ROOT, "root " + std::to_string(root) + " is not a rank of the communicator (size " +
                               std::to_string(comm_->size()) + ")");
    } else if (comm_->inter && root != MPI_ROOT && root != MPI_PROC_NULL && (root < 0 || root >= comm_->peers())) {
        std::string detail = std::to_string(root);
        detail.insert(0, "root ");
        detail.append(" on an intercommunicator is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group");
        detail.append(" (size ");
        detail.append(std::to_string(comm_->peers())).append(")");
        fail(MPI_ERR_ROOT, std::move(detail));
    }
    return *this;
}

CollChecks& CollChecks::distinct(const void* send, const void* recv, int n) {
    if (ok() && n > 0 && send == recv && send != MPI_BOTTOM && !in_place(send))
        fail(MPI_ERR_BUFFER, "the send and receive buffers are the same; MPI-1 forbids aliased buffers");
    return *this;
}

CollChecks& CollChecks::not_in_place(const void* p, const char* what) {
    if (ok() && in_place(p)) fail(MPI_ERR_BUFFER, std::string("MPI_IN_PLACE is not allowed as ") + what);
    return *this;
}

CollChecks& CollChecks::op(MPI_Op op, MPI_Datatype handle, const Datatype* t,
                           std::unique_ptr<coll::ReduceOp>& out) {
    if (ok() && reduce_op_make(op, handle, *t, form_, out) != MPI_SUCCESS)
        fail(MPI_ERR_OP, "not a valid operation, or a predefined operation MPI-1 does not define on this datatype");
    return *this;
}

int CollChecks::raise() const { return error_raise(handle_, cls_, fn_, detail_); }

int CollChecks::finish(adi::Error e) const { return coll_finish(handle_, fn_, e, form_); }

coll::Group group_of(Comm& c) {
    if (!c.cache.levels) c.cache.levels = std::make_unique<coll::Levels>(coll::levels_of(topology_all(), c.group()));
    return coll::Group{*rt().engine, c.context + 1, c.rank, c.group(), c.cache.levels.get()};
}

coll::inter::Groups groups_of(Comm& c) { return {group_of(c), group_remote(c)}; }

int coll_finish(MPI_Comm comm, const char* fn, adi::Error e, const Form& form) {
    if (e == adi::Error::none && !form.fits) {
        return error_raise(comm, MPI_ERR_TRUNCATE, fn,
                           "a value does not fit the form it was converted into between representations");
    }
    if (e == adi::Error::none) return MPI_SUCCESS;
    std::string detail = rt().engine->last_error();
    if (e == adi::Error::truncated)
        detail = "a process sent more than the receiver's count and datatype hold; type signatures must match";
    return error_raise(comm, error_class_of(e), fn, detail);
}

std::size_t bytes_of(const Datatype& t, int count, const Form& form) {
    return form.rep ? form_bytes(*t.map, count, *form.rep) : bytes_of(t, count);
}

DenseIn::DenseIn(const Datatype& t, const void* buf, int count, const Form& form, bool copy)
    : data_(buf), bytes_(bytes_of(t, count, form)) {
    if (bytes_ == 0) return;
    if (form.converts(t)) {
        stage_.resize(bytes_);
        form.fits &= form_write(*t.map, buf, count, stage_.data(), *form.rep);
        data_ = stage_.data();
    } else if (copy || !dense_layout(t)) {
        copy_.resize(bytes_);
        datatype_pack(t, buf, count, copy_.data());
        data_ = copy_.data();
    }
}

DenseOut::DenseOut(const Datatype& t, void* buf, int count, const Form& form, bool in)
    : type_(t), buf_(buf), count_(count), form_(form), data_(buf), bytes_(bytes_of(t, count, form)) {
    if (bytes_ == 0) return;
    if (form.converts(t)) {
        stage_.resize(bytes_);
        if (in) form.fits &= form_write(*t.map, buf, count, stage_.data(), *form.rep);
        data_ = stage_.data();
    } else if (!dense_layout(t)) {
        copy_.resize(bytes_);
        if (in) datatype_pack(t, buf, count, copy_.data());
        data_ = copy_.data();
    }
}

void DenseOut::finish() {
    if (!stage_.empty()) {
        form_.fits &= form_read(*type_.map, stage_.data(), stage_.size(), count_, buf_, *form_.rep).fits;
    } else if (!copy_.empty()) {
        datatype_unpack(type_, copy_.data(), count_, buf_);
    }
}

DenseBlocks::DenseBlocks(const Datatype* t, const void* buf, const int* counts, const int* displs, int procs,
                         bool blocks, const Form& form, bool copy)
    : type_(t), buf_(const_cast<void*>(buf)), form_(form), user_counts_(counts), user_displs_(displs) {
    if (!blocks) return;
    const auto n = static_cast<std::size_t>(procs);
    counts_.resize(n);
    displs_.resize(n);
    bool direct = !copy && dense_layout(*t) && !form.converts(*t);
    for (std::size_t i = 0; i < n; ++i) direct = direct && displs[i] >= 0;
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        counts_[i] = bytes_of(*t, counts[i], form);
        displs_[i] = direct ? static_cast<std::size_t>(displs[i]) * static_cast<std::size_t>(t->extent) : total;
        total += counts_[i];
    }
    if (direct) {
        data_ = buf_;
    } else if (form.converts(*t)) {
        stage_.resize(total);
        data_ = stage_.data();
        copied_ = true;
    } else {
        copy_.resize(total);
        data_ = copy_.data();
        copied_ = true;
    }
}

void* DenseBlocks::block_origin(std::size_t i) const {
    return byte_address(buf_, static_cast<MPI_Aint>(user_displs_[i]) * type_->extent);
}

void DenseBlocks::pack_from_user() {
    if (!copied_) return;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] == 0) continue;
        if (form_.converts(*type_)) {
            form_.fits &=
                form_write(*type_->map, block_origin(i), user_counts_[i], stage_.data() + displs_[i], *form_.rep);
        } else {
            datatype_pack(*type_, block_origin(i), user_counts_[i], copy_.data() + displs_[i]);
        }
    }
}

void DenseBlocks::unpack_to_user() {
    if (!copied_) return;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] == 0) continue;
        if (form_.converts(*type_)) {
            form_.fits &= form_read(*type_->map, stage_.data() + displs_[i], counts_[i], user_counts_[i],
                                    block_origin(i), *form_.rep)
                              .fits;
        } else {
            datatype_unpack(*type_, copy_.data() + displs_[i], user_counts_[i], block_origin(i));
        }
    }
}

}  // namespace strata::mpi
