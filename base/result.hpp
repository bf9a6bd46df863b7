// The one way a function inside the library and its tools says it failed.
//
// A function that can fail returns Result<T> (a T, or the error) or Status
// (nothing, or the error). The error is the text a user reads: it names the
// file and line, the peer or the setting, and says what to do where that is
// known. A caller that cannot add anything passes the failure up with
// `return r.failure();`; one that knows more context adds it with
// `return r.failure().prefixed("WHERE: ")`.
//
// Backpressure and "not yet" are values of T (an enum such as `again`), not
// failures. Exceptions appear only where a library forces them (yaml-cpp's
// parser, the throwing Asio overloads) and are caught at that edge and turned
// into a Result. At the C ABI, mpi/errors.hpp maps failures to MPI error
// classes; no exception crosses it.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace strata::base {

// A failure's text: `return base::Error{"cannot read 'jobs.yaml': ..."};`.
struct Error {
    std::string text;

    Error prefixed(const std::string& prefix) && {
        text.insert(0, prefix);
        return std::move(*this);
    }
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
    Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT(google-explicit-constructor)

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    // Only when ok().
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    // "" when ok().
    const std::string& error() const {
        static const std::string none;
        return ok() ? none : std::get<1>(v_).text;
    }
    // The failure, to return from a caller of another type; only when !ok().
    Error failure() const& { return std::get<1>(v_); }
    Error failure() && { return std::get<1>(std::move(v_)); }

private:
    std::variant<T, Error> v_;
};

class [[nodiscard]] Status {
public:
    Status() = default;                                        // success
    Status(Error e) : failed_(true), error_(std::move(e.text)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    // "" when ok().
    const std::string& error() const { return error_; }
    Error failure() const& { return Error{error_}; }
    Error failure() && { return Error{std::move(error_)}; }

private:
    bool failed_ = false;
    std::string error_;
};

}  // namespace strata::base
