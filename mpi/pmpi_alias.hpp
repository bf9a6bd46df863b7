// Every MPI_name entry point is a weak alias of PMPI_name, so that a profiling
// library's own MPI_name, linked first, takes its place (MPI-1 chapter 8).
//
// An alias attribute rather than `#pragma weak`: in C++, clang (14 at least)
// applies the pragma to the mangled name, so the library would export no
// MPI_ symbol at all (llvm-project issue 95891).
#pragma once

#define STRATA_PMPI_ALIAS(name) extern "C" decltype(P##name) name __attribute__((weak, alias("P" #name)))
