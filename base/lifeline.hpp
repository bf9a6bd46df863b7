// For objects whose asynchronous handlers capture `this` and that may be
// destroyed while the io_context keeps running (a gatekeeper ends one
// subjob's adapter while it serves others): a completion already queued when
// the object died still runs, with success, so cancelling is not enough.
// Handlers capture token() and return at once when it has expired.
#pragma once

#include <memory>

namespace strata::base {

class Lifeline {
public:
    Lifeline() = default;
    Lifeline(const Lifeline&) = delete;
    Lifeline& operator=(const Lifeline&) = delete;

    std::weak_ptr<const void> token() const { return alive_; }

private:
    std::shared_ptr<const void> alive_ = std::make_shared<char>(0);
};

}  // namespace strata::base
