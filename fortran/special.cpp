// The Fortran routines that are more than a conversion of their arguments
// (the "@special" lines of fortran/routines.txt): start-up, addresses,
// attributes with Fortran callbacks, and the routines that return a value.
#include <cstdint>
#include <deque>

#include "fortran/convert.hpp"
#include "mpi/errors.hpp"

using namespace strata;
using fortran::origin;

extern "C" {
STRATAF_EXPORT fortran::Commons strataf_{};
STRATAF_EXPORT fortran::Commons strataf{};
STRATAF_EXPORT fortran::Commons STRATAF{};
}

namespace strata::fortran {

// A Fortran keyval's callbacks take every argument by reference and return
// the error in a last argument. The C library calls the trampolines below,
// with a record of the Fortran procedures as the extra state.
// MPI_KEYVAL_CREATE's values are default INTEGERs, MPI_COMM_CREATE_KEYVAL's
// ADDRESS_KIND ones; either travels in the C library's void* value.
template <class Value>
struct FortranKeyval {
    using Copy = void (*)(MPI_Fint* oldcomm, MPI_Fint* keyval, Value* extra_state, Value* attribute_val_in,
                          Value* attribute_val_out, MPI_Fint* flag, MPI_Fint* ierr);
    using Delete = void (*)(MPI_Fint* comm, MPI_Fint* keyval, Value* attribute_val, Value* extra_state,
                            MPI_Fint* ierr);
    Copy copy;
    Delete del;
    Value extra;
};

}  // namespace strata::fortran

using fortran::FortranKeyval;

namespace {

template <class Value>
void* to_pointer(Value v) {
    return reinterpret_cast<void*>(static_cast<std::intptr_t>(v));
}
template <class Value>
Value from_pointer(void* p) {
    return static_cast<Value>(reinterpret_cast<std::intptr_t>(p));
}

template <class Value>
int copy_trampoline(MPI_Comm oldcomm, int keyval, void* extra_state, void* in, void* out, int* flag) {
    auto* k = static_cast<FortranKeyval<Value>*>(extra_state);
    Value value_in = from_pointer<Value>(in);
    Value value_out = 0;
    MPI_Fint f_flag = 0;
    MPI_Fint ierr = MPI_SUCCESS;
    k->copy(&oldcomm, &keyval, &k->extra, &value_in, &value_out, &f_flag, &ierr);
    *flag = f_flag != 0 ? 1 : 0;
    *static_cast<void**>(out) = to_pointer(value_out);
    return ierr;
}

template <class Value>
int delete_trampoline(MPI_Comm comm, int keyval, void* value, void* extra_state) {
    auto* k = static_cast<FortranKeyval<Value>*>(extra_state);
    Value v = from_pointer<Value>(value);
    MPI_Fint ierr = MPI_SUCCESS;
    k->del(&comm, &keyval, &v, &k->extra, &ierr);
    return ierr;
}

// The records live as long as the process: a keyval freed by the program
// still serves the attributes that hold it.
template <class Value>
std::deque<FortranKeyval<Value>>& keyvals() {
    static std::deque<FortranKeyval<Value>> records;
    return records;
}

template <class Value>
int keyval_create(int (*create)(MPI_Copy_function*, MPI_Delete_function*, int*, void*),
                  typename FortranKeyval<Value>::Copy copy, typename FortranKeyval<Value>::Delete del,
                  MPI_Fint* keyval, Value extra) {
    auto& k = keyvals<Value>().emplace_back(FortranKeyval<Value>{copy, del, extra});
    return create(&copy_trampoline<Value>, &delete_trampoline<Value>, keyval, &k);
}

// The predefined attributes hold a pointer to an int in C; Fortran sees the
// int. MPIX_PARALLEL_STREAMS is set the same way. The topology attributes are
// arrays of pointers, which no Fortran 77 variable holds (MPIX_TOPOLOGY_GET
// copies them into the program's arrays).
bool holds_int_pointer(int keyval) {
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
           keyval == MPIX_PARALLEL_STREAMS;
}
bool holds_pointer_array(int keyval) {
    return keyval == MPICHX_TOPOLOGY_DEPTHS || keyval == MPICHX_TOPOLOGY_COLORS;
}

template <class Value>
int attr_put(const char* fn, int (*put)(MPI_Comm, int, void*), MPI_Fint comm, MPI_Fint keyval, Value value) {
    if (keyval == MPIX_QOS) {
        // The premium rate in Mbit/s, 0 for best effort (mpi.h); a negative
        // rate reaches MPI_ERR_ARG as premium below 1 Mbit/s.
        const int mbit = static_cast<int>(value);
        MPIX_Qos q{mbit == 0 ? MPIX_QOS_BEST_EFFORT : MPIX_QOS_PREMIUM, mbit};
        return put(comm, keyval, &q);
    }
    if (holds_int_pointer(keyval)) {
        int v = static_cast<int>(value);
        return put(comm, keyval, &v);
    }
    if (holds_pointer_array(keyval))
        return mpi::error_raise(comm, MPI_ERR_ARG, fn, "the topology attributes cannot be set");
    return put(comm, keyval, to_pointer(value));
}

template <class Value>
int attr_get(const char* fn, int (*get)(MPI_Comm, int, void*, int*), MPI_Fint comm, MPI_Fint keyval, Value* value,
             MPI_Fint* flag) {
    if (holds_pointer_array(keyval)) {
        return mpi::error_raise(comm, MPI_ERR_ARG, fn,
                                "the topology attributes are arrays of pointers, which Fortran 77 cannot hold; "
                                "read them with MPIX_TOPOLOGY_GET");
    }
    void* p = nullptr;
    const int rc = get(comm, keyval, &p, flag);
    if (rc == MPI_SUCCESS && *flag != 0 && keyval == MPIX_QOS) {
        const auto* q = static_cast<const MPIX_Qos*>(p);
        *value = static_cast<Value>(q->service == MPIX_QOS_PREMIUM ? q->mbit : 0);
    } else if (rc == MPI_SUCCESS && *flag != 0) {
        *value = holds_int_pointer(keyval) ? static_cast<Value>(*static_cast<int*>(p)) : from_pointer<Value>(p);
    }
    return rc;
}

int address(const void* location, MPI_Aint* distance) {
    MPI_Aint at = 0;
    const int rc = MPI_Get_address(location, &at);
    if (rc == MPI_SUCCESS) *distance = at - reinterpret_cast<MPI_Aint>(origin());
    return rc;
}

}  // namespace

extern "C" {

// ---- Start-up and environment -------------------------------------------------
// The program's arguments stay with the Fortran run-time library.
STRATAF_EXPORT void pmpi_init_(MPI_Fint* ierr) { *ierr = MPI_Init(nullptr, nullptr); }

STRATAF_EXPORT void pmpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
    *ierr = MPI_Init_thread(nullptr, nullptr, *required, provided);
}

// MPI-1 gives MPI_PCONTROL no IERROR.
STRATAF_EXPORT void pmpi_pcontrol_(MPI_Fint* level) { MPI_Pcontrol(*level); }

STRATAF_EXPORT double pmpi_wtime_() { return MPI_Wtime(); }
STRATAF_EXPORT double pmpi_wtick_() { return MPI_Wtick(); }

// ---- Addresses ----------------------------------------------------------------
// Counted from the program's MPI_BOTTOM (convert.hpp), which lies in the
// program's static data, so that MPI_ADDRESS of a variable in a COMMON block
// or SAVEd fits a default INTEGER; one that does not is MPI_ERR_ARG.
STRATAF_EXPORT void pmpi_address_(void* location, MPI_Fint* address, MPI_Fint* ierr) {
    MPI_Aint distance = 0;
    *ierr = ::address(fortran::buffer(location), &distance);
    if (*ierr == MPI_SUCCESS) *ierr = fortran::aint_to_fortran(distance, address, "MPI_ADDRESS");
}

STRATAF_EXPORT void pmpi_get_address_(void* location, MPI_Aint* address, MPI_Fint* ierr) {
    *ierr = ::address(fortran::buffer(location), address);
}

STRATAF_EXPORT MPI_Aint pmpi_aint_add_(MPI_Aint* base, MPI_Aint* disp) { return MPI_Aint_add(*base, *disp); }
STRATAF_EXPORT MPI_Aint pmpi_aint_diff_(MPI_Aint* addr1, MPI_Aint* addr2) { return MPI_Aint_diff(*addr1, *addr2); }

// A Fortran program cannot use the detached buffer's address; only the size comes back.
STRATAF_EXPORT void pmpi_buffer_detach_(void* /*buffer*/, MPI_Fint* size, MPI_Fint* ierr) {
    void* detached = nullptr;
    *ierr = MPI_Buffer_detach(&detached, size);
}

// BASEPTR is an ADDRESS_KIND integer (a Cray pointer's value).
STRATAF_EXPORT void pmpi_alloc_mem_(MPI_Aint* size, MPI_Fint* info, MPI_Aint* baseptr, MPI_Fint* ierr) {
    void* p = nullptr;
    *ierr = MPI_Alloc_mem(*size, *info, &p);
    if (*ierr == MPI_SUCCESS) *baseptr = reinterpret_cast<MPI_Aint>(p);
}

// ---- Attributes -------------------------------------------------------------------
STRATAF_EXPORT void pmpi_keyval_create_(FortranKeyval<MPI_Fint>::Copy copy_fn, FortranKeyval<MPI_Fint>::Delete delete_fn,
                                        MPI_Fint* keyval, MPI_Fint* extra_state, MPI_Fint* ierr) {
    *ierr = keyval_create<MPI_Fint>(&MPI_Keyval_create, copy_fn, delete_fn, keyval, *extra_state);
}

STRATAF_EXPORT void pmpi_comm_create_keyval_(FortranKeyval<MPI_Aint>::Copy copy_fn,
                                             FortranKeyval<MPI_Aint>::Delete delete_fn, MPI_Fint* keyval,
                                             MPI_Aint* extra_state, MPI_Fint* ierr) {
    *ierr = keyval_create<MPI_Aint>(&MPI_Comm_create_keyval, copy_fn, delete_fn, keyval, *extra_state);
}

STRATAF_EXPORT void pmpi_attr_put_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* ierr) {
    *ierr = attr_put("MPI_ATTR_PUT", &MPI_Attr_put, *comm, *keyval, *value);
}

STRATAF_EXPORT void pmpi_comm_set_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* ierr) {
    *ierr = attr_put("MPI_COMM_SET_ATTR", &MPI_Comm_set_attr, *comm, *keyval, *value);
}

STRATAF_EXPORT void pmpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierr) {
    *ierr = attr_get("MPI_ATTR_GET", &MPI_Attr_get, *comm, *keyval, value, flag);
}

STRATAF_EXPORT void pmpi_comm_get_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                                        MPI_Fint* ierr) {
    *ierr = attr_get("MPI_COMM_GET_ATTR", &MPI_Comm_get_attr, *comm, *keyval, value, flag);
}

// The predefined callbacks, as Fortran procedures (mpif.h declares them EXTERNAL).
STRATAF_EXPORT void pmpi_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* flag,
                                       MPI_Fint* ierr) {
    *flag = 0;
    *ierr = MPI_SUCCESS;
}
STRATAF_EXPORT void pmpi_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag,
                                 MPI_Fint* ierr) {
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
STRATAF_EXPORT void pmpi_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* ierr) {
    *ierr = MPI_SUCCESS;
}
STRATAF_EXPORT void pmpi_comm_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Aint*, MPI_Fint* flag,
                                            MPI_Fint* ierr) {
    *flag = 0;
    *ierr = MPI_SUCCESS;
}
STRATAF_EXPORT void pmpi_comm_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,
                                      MPI_Fint* ierr) {
    *out = *in;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}
STRATAF_EXPORT void pmpi_comm_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierr) {
    *ierr = MPI_SUCCESS;
}

}  // extern "C"

// The upper-case spellings of the callbacks are also mpi.h's macros for C's.
#undef MPI_NULL_COPY_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_COMM_DUP_FN
#include "fortran/special_aliases.inc"
